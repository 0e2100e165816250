package bench

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestBenchSite checks the benchmark set-up on a small site: seeding, the
// bearer token, and that each benchmarked call answers HTTP 200 with the
// expected result, as the owner and anonymously.
func TestBenchSite(t *testing.T) {
	bs := newBenchSite(t, 150) // two batches, one partial
	if len(bs.all) != 150 {
		t.Fatalf("seeded %d posts, want 150", len(bs.all))
	}
	// Every 10th is unlisted and every 25th a draft: 150 − 15 − 6 + 3 both.
	if want := 150 - 15 - 6 + 3; len(bs.public) != want {
		t.Fatalf("%d public posts, want %d", len(bs.public), want)
	}
	if n := len([]rune(noteContent(1))); n < 180 || n > 220 {
		t.Errorf("note is %d characters, want about 200", n)
	}

	var got struct {
		Result struct {
			ID      string   `json:"id"`
			Content string   `json:"content"`
			Source  *string  `json:"source"`
			Tags    []string `json:"tags"`
		} `json:"result"`
	}
	decode(t, bs, getBodies(bs.public[:1], 1)[0], false, &got)
	if got.Result.ID != bs.public[0] || got.Result.Source != nil || len(got.Result.Tags) != 2 {
		t.Errorf("anonymous posts.get = %+v", got.Result)
	}
	decode(t, bs, getBodies(bs.all[24:25], 1)[0], true, &got) // a draft
	if got.Result.ID != bs.all[24] || got.Result.Source == nil {
		t.Errorf("owner posts.get of a draft = %+v", got.Result)
	}
	if err := bs.call(getBodies(bs.all[24:25], 1)[0], false); err == nil {
		t.Error("anonymous posts.get of a draft succeeded")
	}

	var list struct {
		Result struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			NextCursor *string `json:"next_cursor"`
		} `json:"result"`
	}
	for _, owner := range []bool{true, false} {
		decode(t, bs, listBody(20), owner, &list)
		if len(list.Result.Items) != 20 || list.Result.NextCursor == nil {
			t.Errorf("posts.list (owner %v): %d items, next %v", owner, len(list.Result.Items), list.Result.NextCursor)
		}
		decode(t, bs, cursorBodies(bs.public[100:101], 20, 1)[0], owner, &list)
		if len(list.Result.Items) == 0 {
			t.Errorf("posts.list after a cursor (owner %v): no items", owner)
		}
	}

	decode(t, bs, createBody(1000), true, &got)
	if got.Result.ID == "" || len(got.Result.Tags) != 2 {
		t.Errorf("posts.create = %+v", got.Result)
	}
	if rec := bs.serve(createBody(1001), false); rec.Code != http.StatusUnauthorized {
		t.Errorf("anonymous posts.create: HTTP %d, want 401", rec.Code)
	}

	ph, err := throughput(bs, [][]byte{listBody(20)}, false, 4, 50*time.Millisecond)
	if err != nil || ph.opsPerSec <= 0 {
		t.Errorf("throughput = %+v, %v", ph, err)
	}
}

func decode(t *testing.T, bs *benchSite, body []byte, owner bool, v any) {
	t.Helper()
	rec := bs.serve(body, owner)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", body, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
}

func TestQuantile(t *testing.T) {
	var l latencies
	for i := 1; i <= 100; i++ {
		l = append(l, time.Duration(i))
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50}, {0.9, 90}, {0.99, 99}, {1, 100}, {0, 1}} {
		if got := quantile(l, c.q); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if m := median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
}
