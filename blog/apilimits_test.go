package blog_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/internal/heaptest"
	"github.com/murlog/murlog/post"
)

// longArticles publishes n articles of post.MaxArticle characters of
// Japanese prose (three bytes a character), the long articles of the
// 19 MB list.
func (e *env) longArticles(n int) []*murlog.Post {
	e.t.Helper()
	para := strings.Repeat("吾輩は猫である。名前はまだ無い。", 50) + "\n\n"
	body := strings.Repeat(para, post.MaxArticle/len([]rune(para)))
	out := make([]*murlog.Post, n)
	for i := range out {
		out[i] = e.post(post.CreateInput{Kind: murlog.KindArticle, Title: fmt.Sprintf("長い記事 %d", i), Content: body})
		e.clock.Advance(time.Second)
	}
	return out
}

type listDoc struct {
	Posts []map[string]any `json:"posts"`
	Next  string           `json:"next"`
}

// TestAPIListsCarryExcerpts: a page of 20 of the longest articles is a
// few kilobytes of excerpts, far under the response budget; the single
// post keeps its whole body; both answer 304 to their ETag.
func TestAPIListsCarryExcerpts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	posts := e.longArticles(20)
	for _, path := range []string{"/api/pub/personas/alice/posts?limit=20", "/api/pub/posts/by-ids?ids=" + posts[0].ID + "," + posts[19].ID} {
		r := e.get(path)
		var doc listDoc
		if err := json.Unmarshal([]byte(r.body), &doc); err != nil || r.status != 200 {
			t.Fatalf("GET %s = %d %.200s; want 200 JSON", path, r.status, r.body)
		}
		if len(r.body) > 64<<10 || len(r.body) > blog.APIBudget {
			t.Errorf("GET %s = %d bytes; want a list of excerpts, under 64 KiB (the budget is %d)", path, len(r.body), blog.APIBudget)
		}
		for _, p := range doc.Posts {
			if _, ok := p["content_html"]; ok || p["description"] == "" || p["title"] == "" || p["url"] == "" {
				t.Errorf("GET %s: post %v; want id, url, title and description, no content_html", path, p["id"])
			}
		}
		if path[len("/api/pub/p")] == 'e' && (len(doc.Posts) != 20 || doc.Next != "") {
			t.Errorf("GET %s: %d posts, next %q; want all 20 and no next page", path, len(doc.Posts), doc.Next)
		}
		if again := e.get(path, "If-None-Match", r.header.Get("Etag")); again.status != http.StatusNotModified {
			t.Errorf("GET %s with its ETag = %d; want 304", path, again.status)
		}
	}
	r := e.get("/api/pub/posts/" + posts[3].ID)
	var one struct {
		Post map[string]any `json:"post"`
	}
	if err := json.Unmarshal([]byte(r.body), &one); err != nil || r.status != 200 {
		t.Fatalf("GET one post = %d; want 200 JSON", r.status)
	}
	if html, _ := one.Post["content_html"].(string); len(html) < 3*post.MaxArticle*9/10 || len(r.body) > blog.APIBudget {
		t.Errorf("single post: content_html of %d bytes in a %d-byte answer; want the whole body, under the budget", len(html), len(r.body))
	}
	if again := e.get("/api/pub/posts/"+posts[3].ID, "If-None-Match", r.header.Get("Etag")); again.status != http.StatusNotModified {
		t.Errorf("GET one post with its ETag = %d; want 304", again.status)
	}
}

// TestRenderListStaysInItsBudget: a list that would pass the budget ends
// at the last post that fits, with a cursor to go on from there (by-ids
// leaves the rest out); a first post that cannot fit is refused, named.
func TestRenderListStaysInItsBudget(t *testing.T) {
	t.Parallel()
	list := &blog.PostList{}
	for i := range 10 {
		list.Posts = append(list.Posts, blog.PostView{ID: fmt.Sprintf("%016x", i), Description: strings.Repeat("x", 900)})
	}
	whole, err := blog.RenderList(list, blog.APIBudget, true)
	if err != nil || !json.Valid(whole) || strings.Contains(string(whole), `"next"`) {
		t.Fatalf("RenderList within the budget = %.100s, %v; want all of it, no next", whole, err)
	}
	for _, cursor := range []bool{true, false} {
		got, err := blog.RenderList(list, 4000, cursor)
		var doc struct {
			Posts []blog.PostView `json:"posts"`
			Next  string          `json:"next"`
		}
		if err != nil || json.Unmarshal(got, &doc) != nil || len(got) > 4000 {
			t.Fatalf("RenderList(limit 4000) = %d bytes, %v; want valid JSON within 4000", len(got), err)
		}
		wantNext := ""
		if cursor {
			wantNext = doc.Posts[len(doc.Posts)-1].ID
		}
		if len(doc.Posts) == 0 || len(doc.Posts) >= 10 || doc.Next != wantNext {
			t.Errorf("RenderList(limit 4000, cursor %v): %d posts, next %q; want a few, next %q", cursor, len(doc.Posts), doc.Next, wantNext)
		}
	}
	if _, err := blog.RenderList(list, 500, true); murlog.ErrorCode(err) != murlog.EInvalid || !strings.Contains(err.Error(), "budget of 500 bytes") {
		t.Errorf("RenderList with room for no post = %v; want invalid naming the budget", err)
	}
}

// TestAPIRequestsInFlightAreCapped: with the public API's slots all
// taken, more requests — all at once — are refused with 503, Retry-After
// and a JSON error naming the limit, after a short wait rather than
// queued; the pages are not capped; a slot given back serves again.
func TestAPIRequestsInFlightAreCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.note("hello")
	slots := blog.APISlots(e.h)
	held := 0
	for range httpd.AnonInFlight {
		if !slots.Acquire(ctx) {
			t.Fatal("could not take a free slot")
		}
		held++
	}
	t.Cleanup(func() { // before the server waits for its handlers
		for ; held > 0; held-- {
			slots.Release()
		}
	})
	// A refusal comes after httpd.AnonWait; a client that gives up long
	// after turns a cap that queues (or hangs) into a failure saying so.
	client := &http.Client{Timeout: httpd.AnonWait + 2*time.Second}
	paths := []string{"/api/pub/personas/alice/posts", "/api/pub/posts/" + p.ID, "/api/pub/posts/by-ids?ids=" + p.ID, "/api/pub/personas/alice/config"}
	var wg sync.WaitGroup
	type answer struct {
		status int
		retry  string
		body   []byte
		err    error
	}
	got := make([]answer, 3*len(paths))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := client.Get(e.srv.URL + paths[i%len(paths)])
			if err != nil {
				got[i].err = err
				return
			}
			defer res.Body.Close()
			got[i].body, got[i].err = io.ReadAll(res.Body)
			got[i].status, got[i].retry = res.StatusCode, res.Header.Get("Retry-After")
		}()
	}
	wg.Wait()
	for i, a := range got {
		var v struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		json.Unmarshal(a.body, &v)
		if a.err != nil || a.status != http.StatusServiceUnavailable || a.retry == "" || v.Error.Code != "unavailable" ||
			!strings.Contains(v.Error.Message, fmt.Sprintf("limit %d", httpd.AnonInFlight)) {
			t.Errorf("GET %s with every slot taken = %d Retry-After %q %s (%v); want 503 unavailable naming the limit, within %v",
				paths[i%len(paths)], a.status, a.retry, a.body, a.err, client.Timeout)
		}
	}
	if r := e.get(e.postPath(p)); r.status != 200 {
		t.Errorf("a page while the API is at its cap = %d; want 200", r.status)
	}
	slots.Release()
	held--
	if r := e.get("/api/pub/posts/" + p.ID); r.status != 200 {
		t.Errorf("GET a post once a slot is free = %d; want 200", r.status)
	}
	if n := slots.InUse(); n != held {
		t.Errorf("%d slots in use with %d held by the test; want the served request's given back", n, held)
	}
}

// TestAPIBurstHeap: 16 readers at once asking for a page of 20 of the
// longest articles made the process grow by hundreds of megabytes; with
// excerpts and the cap, a burst stays within a few budgets.
func TestAPIBurstHeap(t *testing.T) {
	e := newEnv(t)
	e.longArticles(20)
	e.get("/api/pub/personas/alice/posts?limit=20") // warm caches
	const readers = 16
	statuses := make(chan int, readers)
	growth := heaptest.PeakGrowth(func() {
		var wg sync.WaitGroup
		for range readers {
			wg.Add(1)
			go func() { defer wg.Done(); statuses <- e.get("/api/pub/personas/alice/posts?limit=20").status }()
		}
		wg.Wait()
	})
	close(statuses)
	seen := map[int]int{}
	for s := range statuses {
		seen[s]++
	}
	t.Logf("%d readers at once: peak heap growth %.1f MB, statuses %v", readers, float64(growth)/1e6, seen)
	if seen[200] == 0 || seen[200]+seen[503] != readers {
		t.Errorf("statuses %v; want 200s, and 503s for what found no slot", seen)
	}
	if limit := int64(4 * blog.APIBudget); growth > limit {
		t.Errorf("peak heap growth %.1f MB for %d readers; want at most %.1f MB (4 budgets)", float64(growth)/1e6, readers, float64(limit)/1e6)
	}
}

// TestByIDsRefusesDuplicateKeys: a by-ids body is read as strictly as an
// RPC request: a key given twice, invalid UTF-8 or an unpaired surrogate
// is a 400 that says what and where.
func TestByIDsRefusesDuplicateKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.note("alpha"), e.note("beta")
	for _, c := range []struct{ body, msg string }{
		{`{"ids":["` + a.ID + `"],"ids":["` + b.ID + `"]}`, "ids: is given twice (duplicate keys are refused)"},
		{`{"ids":["` + a.ID + `"],"\u0069ds":["` + b.ID + `"]}`, "ids: is given twice"},
		{"{\"ids\":[\"\xff\"]}", "ids[0]: is not valid UTF-8"},
		{`{"ids":["\ud800"]}`, "unpaired surrogate"},
	} {
		r := e.do("POST", "/api/pub/posts/by-ids", c.body, "Content-Type", "application/json")
		var v struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.body), &v); err != nil || r.status != 400 || v.Error.Code != "invalid" || !strings.Contains(v.Error.Message, c.msg) {
			t.Errorf("POST by-ids %q = %d %s; want 400 invalid saying %q", c.body, r.status, r.body, c.msg)
		}
	}
}
