package bench

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPublicRoutesLoad is issue 16's serve-mode throughput figure: every
// public HTML and ActivityPub JSON route of a real `murlog serve` on a
// 5,000-post site — answered from its artifacts — against the trivial
// server returning the same bytes from memory, in turns with the same
// generator (32 keep-alive connections), so the ratio carries over
// between machines. Target: ≥ 0.60 for each. Readers' requests must not
// run a database statement meanwhile (db_statements_total{class="public"}).
//
//	MURLOG_BENCH_LOAD=1 go test -run PublicRoutesLoad -v ./bench/   (part of make load)
//
// MURLOG_BENCH_LOAD_SECONDS changes the 3 s per run; MURLOG_BENCH_POSTS
// the 5,000 posts.
func TestPublicRoutesLoad(t *testing.T) {
	if os.Getenv("MURLOG_BENCH_LOAD") == "" {
		t.Skip("set MURLOG_BENCH_LOAD=1 to load-test every public route against a trivial server (about 4 minutes with seeding; make load)")
	}
	d := 3 * time.Second
	if v, err := time.ParseDuration(os.Getenv("MURLOG_BENCH_LOAD_SECONDS") + "s"); err == nil && v > 0 {
		d = v
	}
	s := startServer(t, "MURLOG_METRICS_TOKEN="+metricsToken)
	t0 := time.Now()
	ids := seedBlog(t, s, envInt("MURLOG_BENCH_POSTS", 5000))
	t.Logf("%d posts seeded in %.1f s", len(ids), time.Since(t0).Seconds())
	note := ids[len(ids)/2]
	if (len(ids)/2)%3 == 0 {
		note = ids[len(ids)/2+1] // a note, not an article
	}
	host := hostOf(s.base)
	const html, ap = "text/html,application/xhtml+xml,*/*;q=0.8", "application/activity+json"
	targets := []struct{ name, path, accept, want string }{
		{"post page", "/@owner/" + note, html, "<article"},
		{"home page", "/", html, "<article"},
		{"persona page", "/@owner", html, "<article"},
		{"tag page", "/tags/bench", html, "<article"},
		{"actor JSON", "/@owner", ap, `"Person"`},
		{"note JSON", "/@owner/" + note, ap, `"Note"`},
		{"outbox", "/@owner/outbox", ap, `"OrderedCollection"`},
		{"featured", "/@owner/featured", ap, `"OrderedCollection"`},
		{"followers", "/@owner/followers", ap, `"OrderedCollection"`},
		{"WebFinger", "/.well-known/webfinger?resource=" + url.QueryEscape("acct:owner@"+host), "", `"subject"`},
		{"NodeInfo", "/nodeinfo/2.1", "", `"software"`},
		{"RSS", "/@owner/feed.rss", "", "<rss"},
		{"Atom", "/@owner/feed.atom", "", "<feed"},
		{"tag RSS", "/tags/bench/feed.rss", "", "<rss"},
		{"sitemap", "/sitemap.xml", "", "<urlset"},
		{"recent posts pointer", "/api/pub/personas/owner/posts?limit=5", "", `"posts"`},
	}
	dir := t.TempDir()
	for i, tg := range targets {
		ct, body := fetchOnce(t, s.base+tg.path, tg.accept)
		if !bytes.Contains(body, []byte(tg.want)) {
			t.Fatalf("GET %s (%s): no %q in %.300s", tg.path, tg.accept, tg.want, body)
		}
		fetchOnce(t, s.base+tg.path, tg.accept) // a hit from here on
		trivialAnswer(dir, i, trivialPath(i), ct, body)
	}
	trivial := startTrivial(t, dir)
	before := metricsSnapshot(t, http.DefaultClient, s.base)
	var table []string
	for i, tg := range targets {
		m := runLoad(t, s.base, tg.path, tg.accept, d)
		b := runLoad(t, trivial, trivialPath(i), "", d)
		r := m.rps / b.rps
		verdict := "meets"
		if r < 0.6 {
			verdict = "BELOW"
			t.Errorf("%s: %.0f req/s against the trivial server's %.0f: ratio %.2f; want ≥ 0.60", tg.name, m.rps, b.rps, r)
		}
		if m.errs > 0 {
			t.Errorf("%s: %d of %d requests to murlog failed", tg.name, m.errs, m.n)
		}
		line := fmt.Sprintf("| %s | %.0f | %.2f | %.0f | %.2f | %.2f (%s) |", tg.name, m.rps, ms(m.p99), b.rps, ms(b.p99), r, verdict)
		t.Log(line)
		table = append(table, line)
	}
	after := metricsSnapshot(t, http.DefaultClient, s.base)
	public := after[`db_statements_total{class="public"}`] - before[`db_statements_total{class="public"}`]
	t.Logf("| route | murlog req/s | p99 ms | trivial req/s | p99 ms | ratio |\n|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
	t.Logf("public database statements during the runs: %d; artifact hits %d, misses %d", public,
		after.get("artifact_hits_total")-before.get("artifact_hits_total"), after.get("artifact_misses_total")-before.get("artifact_misses_total"))
	if public != 0 {
		t.Errorf("readers' requests ran %d database statements; want 0 (every read an artifact)", public)
	}
}
