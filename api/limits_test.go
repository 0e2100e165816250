package api_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/api"
	"github.com/murlog/murlog/internal/heaptest"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/post"
)

// seedLongPosts creates n public articles of about 20 KB each, the posts of
// the amplification attack in issue 6.
func seedLongPosts(t *testing.T, s *testsite.Site, n int) {
	t.Helper()
	para := strings.Repeat("All work and no play makes a dull post. ", 25) + "\n\n"
	body := strings.Repeat(para, 20) // ~20 KB
	createMany(t, s, n, func(i int) map[string]any {
		return map[string]any{"kind": "article", "title": fmt.Sprintf("Long %d", i), "content": body}
	})
}

// batchOf returns a batch of n posts.list calls with the given limit.
func batchOf(n, limit int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","method":"posts.list","params":{"limit":%d},"id":%d}`, limit, i)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// postAnon sends body anonymously and returns the status and the body size,
// reading it to the end without keeping it.
func postAnon(t *testing.T, s *testsite.Site, body string) (int, int64) {
	t.Helper()
	resp, err := http.Post(s.Server.URL+"/api/mur/v1/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, n
}

// TestAnonymousAmplificationIsBounded is issue 6's attack: one anonymous
// batch of 100 posts.list calls over long posts. With limit 100 every call
// is refused cheaply (the anonymous page limit); with the anonymous maximum
// the reply stops at the response budget and the rest get an error naming
// it. The owner's batches are not cut.
func TestAnonymousAmplificationIsBounded(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	seedLongPosts(t, s, 40)

	status, _, v := raw(t, s, nil, "application/json", batchOf(100, 100))
	arr, _ := v.([]any)
	if status != 200 || len(arr) != 100 {
		t.Fatalf("attack batch = %d with %d responses; want 200 with 100", status, len(arr))
	}
	for i, r := range arr {
		if msg, _ := field(r, "error", "message").(string); field(r, "error", "data", "field") != "limit" ||
			!strings.Contains(msg, fmt.Sprint(post.MaxPublicPage)) {
			t.Fatalf("anonymous posts.list limit 100 (call %d) = %v; want an invalid limit error naming %d", i, r, post.MaxPublicPage)
		}
	}

	status, _, v = raw(t, s, nil, "application/json", batchOf(100, post.MaxPublicPage))
	arr, _ = v.([]any)
	if status != 200 || len(arr) != 100 {
		t.Fatalf("batch at the anonymous limit = %d with %d responses; want 200 with 100", status, len(arr))
	}
	results, refused := 0, 0
	for i, r := range arr {
		if field(r, "id") != float64(i) {
			t.Errorf("response %d has id %v; want %d (order and ids kept)", i, field(r, "id"), i)
		}
		if field(r, "result") != nil {
			if refused > 0 {
				t.Errorf("response %d has a result after the budget was spent", i)
			}
			results++
			continue
		}
		msg, _ := field(r, "error", "message").(string)
		if !strings.Contains(msg, fmt.Sprintf("response budget of %d bytes", api.AnonBudget)) || field(r, "error", "data", "code") != "invalid" {
			t.Errorf("response %d = %v; want the budget error", i, r)
		}
		refused++
	}
	if results == 0 || refused == 0 {
		t.Errorf("batch answered %d results and %d budget errors; want some of each", results, refused)
	}
	if _, n := postAnon(t, s, batchOf(100, post.MaxPublicPage)); n > api.AnonBudget+100*400 {
		t.Errorf("reply is %d bytes; want at most the budget (%d) plus small errors", n, api.AnonBudget)
	}

	// The owner keeps limit 100 and a larger budget.
	status, _, v = raw(t, s, s.Client, "application/json", batchOf(5, 100))
	arr, _ = v.([]any)
	for i, r := range arr {
		if items, _ := field(r, "result", "items").([]any); len(items) != 40 {
			t.Errorf("owner call %d = %d items (%v); want all 40", i, len(items), field(r, "error"))
		}
	}
	if status != 200 || len(arr) != 5 {
		t.Errorf("owner batch = %d with %d responses; want 200 with 5", status, len(arr))
	}
}

// TestAnonymousAttackHeap measures how much heap the attack makes the
// process hold, for one attack batch and for three at once.
func TestAnonymousAttackHeap(t *testing.T) {
	s := testsite.New(t)
	seedLongPosts(t, s, 40)
	postAnon(t, s, batchOf(2, post.MaxPublicPage)) // warm caches and pools

	attack := func() {
		for _, limit := range []int{100, post.MaxPublicPage} {
			resp, err := http.Post(s.Server.URL+"/api/mur/v1/rpc", "application/json", strings.NewReader(batchOf(100, limit)))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}
	const perRequest = 16 << 20
	one := heaptest.PeakGrowth(attack)
	const attackers = 3
	three := heaptest.PeakGrowth(func() {
		done := make(chan struct{}, attackers)
		for range attackers {
			go func() { attack(); done <- struct{}{} }()
		}
		for range attackers {
			<-done
		}
	})
	t.Logf("peak heap growth: %.1f MB for one attack batch, %.1f MB for %d at once", float64(one)/1e6, float64(three)/1e6, attackers)
	if one > perRequest || three > attackers*perRequest {
		t.Errorf("peak heap growth = %.1f MB for one attack batch, %.1f MB for %d; want at most 16 MiB per request",
			float64(one)/1e6, float64(three)/1e6, attackers)
	}
}

// TestPathologicalBodiesAreCheap sends 1 MiB bodies built to make the
// decoder work: a batch of 200,000 empty objects and one object with
// 90,000 keys. Both are refused quickly without holding more than a few
// times the body.
func TestPathologicalBodiesAreCheap(t *testing.T) {
	s := testsite.New(t)
	manyCalls := "[" + strings.Repeat("{},", 200000) + "{}]"
	var keys strings.Builder
	keys.WriteString(`{"jsonrpc":"2.0","method":"posts.list","id":1,"params":{`)
	for i := range 90000 {
		fmt.Fprintf(&keys, `"k%d":0,`, i)
	}
	keys.WriteString(`"limit":1}}`)
	for _, tc := range []struct{ name, body, msg string }{
		{"200,000 calls", manyCalls, "batch of 200001 calls exceeds the limit of 100"},
		{"90,000 keys", keys.String(), "unknown parameter"},
	} {
		if len(tc.body) > api.MaxBody {
			t.Fatalf("%s: body is %d bytes; the test needs it under %d", tc.name, len(tc.body), api.MaxBody)
		}
		var v any
		start := time.Now()
		growth := heaptest.PeakGrowth(func() { _, _, v = raw(t, s, nil, "application/json", tc.body) })
		took := time.Since(start)
		if msg, _ := field(v, "error", "message").(string); !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: %v; want an error containing %q", tc.name, v, tc.msg)
		}
		t.Logf("%s: %v, peak heap growth %.1f MB", tc.name, took, float64(growth)/1e6)
		if growth > 16<<20 || took > 5*time.Second {
			t.Errorf("%s took %v and %.1f MB of heap; want it cheap", tc.name, took, float64(growth)/1e6)
		}
	}
}
