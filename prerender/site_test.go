package prerender_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/internal/testclock"
	"github.com/murlog/murlog/internal/testsite"
	"github.com/murlog/murlog/prerender"
	"github.com/murlog/murlog/store"
)

var ctx = context.Background()

// site is a set-up site with a clock the test moves.
type site struct {
	*testsite.Site
	clock *testclock.Clock
	hc    *http.Client // no transparent gzip: the test sees what is sent
}

func newSite(t *testing.T) *site {
	t.Helper()
	c := testclock.New(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	s := &site{Site: testsite.Start(t, testsite.Options{Now: c.Now}), clock: c,
		hc: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
	s.rebuild(t) // what setup marked
	return s
}

type response struct {
	status int
	header http.Header
	body   string
}

func (s *site) get(t *testing.T, path, accept string, hdr ...string) response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.Server.URL+path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, string(b)}
}

// rebuild runs what the marks name, as the rebuild job does.
func (s *site) rebuild(t *testing.T) prerender.Stats {
	t.Helper()
	rb, _ := s.App.Artifacts()
	if rb == nil {
		t.Fatal("the site has no artifacts")
	}
	st, err := rb.Run(dbstat.With(ctx, dbstat.Worker))
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	return st
}

func (s *site) post(t *testing.T, params map[string]any) string {
	t.Helper()
	var p struct {
		ID string `json:"id"`
	}
	if err := s.Client.Call(ctx, "posts.create", params, &p); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

const (
	browser = "text/html,application/xhtml+xml,*/*;q=0.8"
	ap      = "application/activity+json"
)

// reads are one request of every kind of public document.
func reads(id string) [][2]string {
	return [][2]string{
		{"/", browser}, {"/@alice", browser}, {"/@alice/" + id, browser}, {"/tags/crowd", browser},
		{"/@alice", ap}, {"/@alice/" + id, ap}, {"/@alice/outbox", ap}, {"/@alice/followers", ap},
		{"/.well-known/webfinger?resource=acct:alice@" + "DOMAIN", ""}, {"/.well-known/nodeinfo", ""},
		{"/nodeinfo/2.1", ""}, {"/@alice/feed.rss", ""}, {"/@alice/feed.atom", ""}, {"/tags/crowd/feed.rss", ""},
		{"/sitemap.xml", ""}, {"/robots.txt", ""}, {"/api/pub/personas/alice/posts?limit=5", ""},
		{"/api/pub/personas/alice/config", ""},
	}
}

// TestSteadyStateReadsNoDatabase: once rendered, every public read is
// answered without a database statement (the figure:
// db_statements_total{class="public"} does not move), and the same bytes
// as the dynamic route with the headers an artifact carries.
func TestSteadyStateReadsNoDatabase(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.post(t, map[string]any{"content": "a post for the crowd #crowd"})
	s.rebuild(t)
	rs := reads(id)
	for i := range rs {
		rs[i][0] = strings.ReplaceAll(rs[i][0], "DOMAIN", s.Domain())
	}
	first := map[string]response{}
	for _, r := range rs {
		res := s.get(t, r[0], r[1])
		if res.status != http.StatusOK {
			t.Fatalf("GET %s (%s) = %d\n%.300s", r[0], r[1], res.status, res.body)
		}
		first[r[0]+r[1]] = res
	}
	public := s.App.Statements()[dbstat.Public]
	before := s.App.ArtifactCounts()
	for range 3 {
		for _, r := range rs {
			res := s.get(t, r[0], r[1])
			if res.status != http.StatusOK || res.body != first[r[0]+r[1]].body {
				t.Errorf("GET %s (%s) again = %d, body changed: %v", r[0], r[1], res.status, res.body != first[r[0]+r[1]].body)
			}
		}
		s.clock.Advance(2 * prerender.PageTTL) // past the micro-cache: the store is looked at, not the database
	}
	if d := s.App.Statements()[dbstat.Public] - public; d != 0 {
		t.Errorf("%d reads in steady state ran %d public statements; want 0", 3*len(rs), d)
	}
	after := s.App.ArtifactCounts()
	if hits := after.Hits - before.Hits; hits != uint64(3*len(rs)) || after.Misses != before.Misses {
		t.Errorf("steady state: %d hits, %d misses; want %d hits and no miss", hits, after.Misses-before.Misses, 3*len(rs))
	}
	page := first["/@alice/"+id+browser]
	for h, want := range map[string]string{"Cache-Control": "no-cache", "Vary": "Accept, Accept-Encoding",
		"X-Content-Type-Options": "nosniff", "Content-Type": "text/html; charset=utf-8"} {
		if got := page.header.Get(h); got != want {
			t.Errorf("post page %s = %q; want %q", h, got, want)
		}
	}
	if !strings.Contains(page.body, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`) ||
		!strings.Contains(page.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("post page: want its own policy in a meta element and frame-ancestors in the header; header %q",
			page.header.Get("Content-Security-Policy"))
	}
	if ct := first["/@alice"+ap].header.Get("Content-Type"); !strings.Contains(ct, "activity+json") {
		t.Errorf("actor Content-Type = %q", ct)
	}
}

// TestConditionalAndGzip: an artifact answers If-None-Match with 304 and
// a client taking gzip with the precompressed variant.
func TestConditionalAndGzip(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.post(t, map[string]any{"content": strings.Repeat("long enough to be worth compressing. ", 40)})
	s.rebuild(t)
	plain := s.get(t, "/@alice/"+id, browser)
	etag := plain.header.Get("Etag")
	if plain.status != 200 || etag == "" || plain.header.Get("Content-Encoding") != "" {
		t.Fatalf("plain GET = %d, ETag %q, encoding %q", plain.status, etag, plain.header.Get("Content-Encoding"))
	}
	if res := s.get(t, "/@alice/"+id, browser, "If-None-Match", etag); res.status != http.StatusNotModified || res.body != "" {
		t.Errorf("If-None-Match: %s = %d with %d bytes; want 304 and none", etag, res.status, len(res.body))
	}
	gz := s.get(t, "/@alice/"+id, browser, "Accept-Encoding", "gzip, deflate")
	if gz.header.Get("Content-Encoding") != "gzip" || len(gz.body) >= len(plain.body) {
		t.Fatalf("Accept-Encoding gzip: encoding %q, %d bytes (plain %d); want the smaller gzip variant",
			gz.header.Get("Content-Encoding"), len(gz.body), len(plain.body))
	}
	zr, err := gzip.NewReader(strings.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if string(b) != plain.body {
		t.Error("the gzip variant is not the plain body compressed")
	}
	if res := s.get(t, "/@alice/"+id, browser, "Accept-Encoding", "gzip;q=0"); res.header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 got gzip")
	}
	// A browser takes brotli too: the brotli variant, smaller still.
	br := s.get(t, "/@alice/"+id, browser, "Accept-Encoding", "gzip, deflate, br, zstd")
	if br.header.Get("Content-Encoding") != "br" || len(br.body) >= len(gz.body) {
		t.Fatalf("Accept-Encoding with br: encoding %q, %d bytes (gzip %d); want the smaller brotli variant",
			br.header.Get("Content-Encoding"), len(br.body), len(gz.body))
	}
	if b, err := io.ReadAll(brotli.NewReader(strings.NewReader(br.body))); err != nil || string(b) != plain.body {
		t.Errorf("the brotli variant is not the plain body compressed: %v", err)
	}
	if res := s.get(t, "/@alice/"+id, browser, "Accept-Encoding", "br;q=0, gzip"); res.header.Get("Content-Encoding") != "gzip" {
		t.Errorf("br;q=0, gzip got %q; want gzip", res.header.Get("Content-Encoding"))
	}
	// The variants are files beside the page, for Apache to choose.
	_, st := s.App.Artifacts()
	for _, suffix := range []string{"", ".br", ".gz"} {
		if _, err := st.Stat(ctx, artifact.MustParseKey("html/@alice/"+id+"/index.html"+suffix)); err != nil {
			t.Errorf("html/@alice/%s/index.html%s: %v", id, suffix, err)
		}
	}
}

// TestPublishRebuildsWhatChanged: a new post dirties its own documents,
// its neighbour, its persona's first pages, its tag, the feeds, sitemap
// and pointers — at most 20 artifacts — and readers see it without a
// render of their own.
func TestPublishRebuildsWhatChanged(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	older := s.post(t, map[string]any{"content": "the older post #crowd"})
	s.rebuild(t)
	for _, p := range []string{"/", "/@alice", "/@alice/" + older, "/tags/crowd", "/@alice/feed.rss"} {
		s.get(t, p, browser)
	}
	before := s.App.Events().N[dbstat.ArtifactRebuild]
	id := s.post(t, map[string]any{"content": "fresh news #crowd"})
	// Rendered before the call answered (the owner reads the write at
	// once), but for the sitemap, crawlers' and costly on a big site: the
	// job renders it; 20 at most in all.
	rendered := s.App.Events().N[dbstat.ArtifactRebuild] - before
	if st := s.rebuild(t); rendered == 0 || int(rendered)+st.Rendered > 20 || st.Rendered != 1 || st.Left != 0 {
		t.Errorf("publishing one post rendered %d artifacts before its answer, then the job %+v; want 1–19, then the sitemap, 20 at most", rendered, st)
	}
	misses := s.App.ArtifactCounts().Misses
	for _, p := range []string{"/", "/@alice", "/@alice/" + id, "/tags/crowd", "/@alice/feed.rss"} {
		if res := s.get(t, p, browser); res.status != 200 || !strings.Contains(res.body, "fresh news") {
			t.Errorf("after the rebuild %s = %d without the new post", p, res.status)
		}
	}
	if res := s.get(t, "/@alice/"+older, browser); !strings.Contains(res.body, id) {
		t.Errorf("the older post's page does not link its new neighbour %s", id)
	}
	if m := s.App.ArtifactCounts().Misses; m != misses {
		t.Errorf("%d reads after the rebuild rendered themselves; want every one a hit", m-misses)
	}
}

// TestWritesAheadOfABacklog: with a thousand marks waiting (an import, a
// theme change on a big site), the owner's post is on the home and tag
// pages when the API answers — its request renders the marks it made, not
// the backlog — and the job renders the newest marks first: after a
// theme change, the home page before the backlog's pages.
func TestWritesAheadOfABacklog(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	older := s.post(t, map[string]any{"content": "the older post #ahead"})
	s.rebuild(t)
	for _, p := range []string{"/", "/tags/ahead"} {
		s.get(t, p, browser)
	}
	const backlog = 1000
	var keys []string
	for i := range backlog {
		keys = append(keys, fmt.Sprintf("key:html/@alice/backlog-%04d/index.html", i))
	}
	markBacklog := func() {
		if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark(keys...) }); err != nil {
			t.Fatal(err)
		}
	}
	markBacklog()
	pending := func() int {
		n, err := prerender.Marks{Store: s.App.Store()}.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	s.post(t, map[string]any{"content": "ahead of the backlog #ahead"})
	for _, p := range []string{"/", "/tags/ahead"} {
		if res := s.get(t, p, browser); res.status != 200 || !strings.Contains(res.body, "ahead of the backlog") {
			t.Errorf("right after the post %s = %d without it, behind %d marks", p, res.status, backlog)
		}
	}
	if n := pending(); n != backlog+1 {
		t.Errorf("%d marks wait after the owner's post; want the backlog's %d untouched (the request renders its own) and the sitemap", n, backlog)
	}
	// A theme chosen in /my/: the site's lists are in it when the call
	// answers (the rest of the site follows in the background).
	if err := s.Client.Call(ctx, "site.update_settings", map[string]any{"publication": map[string]any{"design_theme": "dark"}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/@alice"} {
		if res := s.get(t, p, browser); !strings.Contains(res.body, "/themes/dark/") {
			t.Errorf("right after the theme change %s is not in it (%d)", p, res.status)
		}
	}
	s.rebuild(t)
	// A site-wide change made behind the app's back after the backlog:
	// the run takes it first, and the home page and the older post's page
	// among the site's, before any of the backlog. (The author's name
	// changes, so those pages do: one rendered as it was stored is not
	// written again, nor forgotten.)
	markBacklog()
	s.Rename(t, "Alice Renamed")
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark("site") }); err != nil {
		t.Fatal(err)
	}
	rb, _ := s.App.Artifacts()
	run := *rb
	run.Budget = 2 * time.Minute // one run for all of it, however slow the machine (-race)
	var order []string
	run.Forget = func(ks ...artifact.Key) {
		for _, k := range ks {
			order = append(order, k.String())
		}
		rb.Forget(ks...)
	}
	if _, err := run.Run(dbstat.With(ctx, dbstat.Worker)); err != nil {
		t.Fatal(err)
	}
	home, post, first := slices.Index(order, "html/index.html"), slices.Index(order, "html/@alice/"+older+"/index.html"),
		slices.IndexFunc(order, func(k string) bool { return strings.Contains(k, "backlog-") })
	if home < 0 || post < 0 || first < 0 || home > first || post > first {
		t.Errorf("the run rendered the home page at %d, the older post at %d and the backlog from %d; want the site's before the backlog", home, post, first)
	}
	if n := pending(); n != 0 {
		t.Errorf("%d marks left after the run; want none", n)
	}
}

// TestRunWaitsForTheOwnersRequest: the job, woken by an owner's commit,
// waits for the request to end rather than render its pages beside the
// request's own pass — and finds nothing left.
func TestRunWaitsForTheOwnersRequest(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	rb, _ := s.App.Artifacts()
	done := rb.Writing()
	began := time.Now()
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error {
		return tx.DirtyKeys().Mark("key:html/index.html", "key:html/@alice/index.html")
	}); err != nil {
		t.Fatal(err)
	}
	ran := make(chan prerender.Stats, 1)
	go func() {
		st, err := rb.Run(dbstat.With(ctx, dbstat.Worker))
		if err != nil {
			t.Error(err)
		}
		ran <- st
	}()
	st, err := rb.Inline(dbstat.With(ctx, dbstat.Worker), 2*time.Second, began, 64)
	done()
	if err != nil || st.Rendered != 2 {
		t.Fatalf("the request's pass = %+v, %v; want its 2 pages", st, err)
	}
	if st := <-ran; st.Rendered != 0 || st.Left != 0 {
		t.Errorf("the job's run = %+v; want nothing rendered and nothing left (it waited for the request)", st)
	}
}

// TestDeleteTakesItsArtifacts: a deleted post's artifacts go, and its
// address answers 410 (the dynamic route's answer) from then on.
func TestDeleteTakesItsArtifacts(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.post(t, map[string]any{"content": "soon gone #crowd"})
	s.rebuild(t)
	if res := s.get(t, "/@alice/"+id, browser); res.status != 200 {
		t.Fatalf("post page = %d", res.status)
	}
	if err := s.Client.Call(ctx, "posts.delete", map[string]any{"id": id}, nil); err != nil {
		t.Fatal(err)
	}
	s.rebuild(t)
	_, st := s.App.Artifacts()
	for _, k := range []string{"html/@alice/" + id + "/index.html", "ap/@alice/" + id + ".as"} {
		if _, err := st.Stat(ctx, artifact.MustParseKey(k)); err == nil {
			t.Errorf("artifact %s still there after the post was deleted", k)
		}
	}
	if res := s.get(t, "/@alice/"+id, browser); res.status != http.StatusGone {
		t.Errorf("deleted post page = %d; want 410", res.status)
	}
	if res := s.get(t, "/@alice", browser); strings.Contains(res.body, "soon gone") {
		t.Error("the persona's page still lists the deleted post")
	}
}

// TestCorruptArtifactIsRenderedAgain: a body damaged on disk is never
// served; it is rendered and stored again.
func TestCorruptArtifactIsRenderedAgain(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.post(t, map[string]any{"content": "intact words"})
	s.rebuild(t)
	want := s.get(t, "/@alice/"+id, browser).body
	_, st := s.App.Artifacts()
	dir := st.(interface{ Dir() string }).Dir()
	file := filepath.Join(dir, "html", "@alice", id, "index.html")
	if err := os.Truncate(file, 10); err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(2 * prerender.PageTTL)
	if got := s.get(t, "/@alice/"+id, browser); got.status != 200 || got.body != want {
		t.Errorf("after truncation: %d, %d bytes; want the whole page (%d bytes)", got.status, len(got.body), len(want))
	}
	if err := artifact.Verify(ctx, st, artifact.MustParseKey("html/@alice/"+id+"/index.html")); err != nil {
		t.Errorf("after the read the artifact is still damaged: %v", err)
	}
}

// TestStaleIfError: with the database gone, what was rendered is still
// served; only a true cold miss answers 503 with Retry-After.
func TestStaleIfError(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.post(t, map[string]any{"content": "survives the outage #crowd"})
	s.rebuild(t)
	warm := s.get(t, "/@alice/"+id, browser)
	s.get(t, "/@alice", ap)
	if c, ok := s.App.Store().(io.Closer); !ok {
		t.Fatal("the store cannot be closed")
	} else if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(2 * prerender.PageTTL)
	if got := s.get(t, "/@alice/"+id, browser); got.status != 200 || got.body != warm.body {
		t.Errorf("warm page with the database closed = %d; want the artifact", got.status)
	}
	if got := s.get(t, "/@alice", ap); got.status != 200 || !strings.Contains(got.body, `"Person"`) {
		t.Errorf("actor with the database closed = %d; want the artifact", got.status)
	}
	cold := s.get(t, "/tags/never-rendered", browser)
	if cold.status != http.StatusServiceUnavailable || cold.header.Get("Retry-After") == "" {
		t.Errorf("cold miss with the database closed = %d, Retry-After %q; want 503 with Retry-After",
			cold.status, cold.header.Get("Retry-After"))
	}
	if bytes.Contains([]byte(cold.body), []byte("sql")) {
		t.Errorf("the 503 names the database internals: %s", cold.body)
	}
}

// TestScheduledPostAppearsByItsJob: a scheduled post is no artifact
// before its time; its post.publish job marks it, and the worker's
// rebuild (the real job, through the queue) puts it everywhere.
func TestScheduledPostAppearsByItsJob(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	at := s.clock.Now().Add(time.Hour)
	id := s.post(t, map[string]any{"content": "from the future #crowd", "published_at": at.Format(time.RFC3339)})
	w := s.App.NewWorker("test")
	if _, err := w.RunBatch(ctx, 50, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if res := s.get(t, "/@alice/"+id, browser); res.status != http.StatusNotFound {
		t.Fatalf("scheduled post page before its time = %d; want 404", res.status)
	}
	if res := s.get(t, "/tags/crowd", browser); strings.Contains(res.body, "from the future") {
		t.Fatal("the tag page lists the post before its time")
	}
	s.clock.Advance(time.Hour + time.Second)
	for range 3 { // post.publish, then the rebuild it made runnable
		if _, err := w.RunBatch(ctx, 50, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	misses := s.App.ArtifactCounts().Misses
	for _, p := range []string{"/@alice/" + id, "/tags/crowd", "/@alice", "/"} {
		if res := s.get(t, p, browser); res.status != 200 || !strings.Contains(res.body, "from the future") {
			t.Errorf("%s after the post's time = %d without the post", p, res.status)
		}
	}
	if m := s.App.ArtifactCounts().Misses - misses; m != 0 {
		t.Errorf("%d of the reads rendered their page; want the rebuild to have done it", m)
	}
}

// TestScheduledLockdownReachesThePointer: nothing is written when a
// scheduled lockdown begins or lifts, yet the runtime pointer readers'
// pages obey — an artifact — says so from then on, by the jobs set at
// its edges.
func TestScheduledLockdownReachesThePointer(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	from, until := s.clock.Now().Add(time.Hour), s.clock.Now().Add(2*time.Hour)
	if err := s.Client.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": true,
		"from": from.Format(time.RFC3339), "until": until.Format(time.RFC3339)}, nil); err != nil {
		t.Fatal(err)
	}
	w := s.App.NewWorker("test")
	locked := func(when string, want bool) {
		t.Helper()
		for range 3 { // the edge's job, then the rebuild it made runnable
			if _, err := w.RunBatch(ctx, 50, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		misses := s.App.ArtifactCounts().Misses
		res := s.get(t, "/api/pub/runtime", "")
		if res.status != 200 || strings.Contains(res.body, `"lockdown":true`) != want {
			t.Errorf("%s the runtime pointer = %d %s; want lockdown %v", when, res.status, res.body, want)
		}
		if m := s.App.ArtifactCounts().Misses - misses; m != 0 {
			t.Errorf("%s the pointer was rendered by the read; want the rebuild to have done it", when)
		}
	}
	locked("before the lockdown's time", false)
	s.clock.Advance(time.Hour + time.Second)
	locked("once the lockdown began", true)
	s.clock.Advance(time.Hour)
	locked("once it lifted", false)
}

// TestUnchangedIsNotWrittenAgain: a publish marks documents that may not
// have changed (the actor, its featured collection); those rendered as
// they are stored are not written again, the changed ones are, and one
// whose variant is gone is written whole again.
func TestUnchangedIsNotWrittenAgain(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.post(t, map[string]any{"content": "the first post"})
	s.rebuild(t)
	_, st := s.App.Artifacts()
	written := func(key string) time.Time {
		t.Helper()
		m, err := st.Stat(ctx, artifact.MustParseKey(key))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return m.ModTime
	}
	const actor, featured, home = "ap/@alice.as", "ap/@alice/featured.as", "html/index.html"
	before := map[string]time.Time{actor: written(actor), featured: written(featured), home: written(home)}
	rendered := s.App.Events().N[dbstat.ArtifactRebuild]
	s.post(t, map[string]any{"content": "the second post"})
	s.rebuild(t)
	if s.App.Events().N[dbstat.ArtifactRebuild] == rendered {
		t.Fatal("the publish rendered nothing")
	}
	for _, k := range []string{actor, featured} {
		if w := written(k); !w.Equal(before[k]) {
			t.Errorf("%s was written again by a publish that did not change it (%s, then %s)", k, before[k], w)
		}
	}
	if w := written(home); w.Equal(before[home]) {
		t.Errorf("the home page was not written again by the publish")
	}
	if got := s.get(t, "/", browser).body; !strings.Contains(got, "the second post") {
		t.Errorf("the home page lacks the new post")
	}
	// A variant lost: the next render of the actor writes it all again.
	dir := st.(interface{ Dir() string }).Dir()
	if err := os.Remove(filepath.Join(dir, "ap", "@alice.as.gz")); err != nil {
		t.Fatal(err)
	}
	if err := s.App.Store().Update(ctx, func(tx store.Tx) error { return tx.DirtyKeys().Mark("key:" + actor) }); err != nil {
		t.Fatal(err)
	}
	s.rebuild(t)
	if _, err := st.Stat(ctx, artifact.MustParseKey(actor+".gz")); err != nil {
		t.Errorf("the actor's gzip variant was not written again: %v", err)
	}
	if res := s.get(t, "/@alice", ap, "Accept-Encoding", "gzip"); res.status != 200 || res.header.Get("Content-Encoding") != "gzip" {
		t.Errorf("the actor after the rewrite: %d, Content-Encoding %q", res.status, res.header.Get("Content-Encoding"))
	}
}
