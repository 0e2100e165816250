package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/internal/testsite"
)

// TestProfileURLsAreNegotiated: "/@alice" answers the actor JSON to an
// ActivityPub client and the blog to a browser, both with Vary: Accept;
// the root is the primary persona's site; other HTML requests get the
// themed 404 and API clients a JSON 404.
func TestProfileURLsAreNegotiated(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	get := func(path, accept string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.Server.URL+path, nil)
		req.Header.Set("Accept", accept)
		res, err := s.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := get("/@alice", "application/activity+json")
	var actor struct{ Type, ID string }
	if err := json.Unmarshal([]byte(body), &actor); err != nil || res.StatusCode != 200 || actor.Type != "Person" {
		t.Errorf("GET /@alice as ActivityPub = %d %s; want the actor", res.StatusCode, body)
	}
	if !varyAccept(res.Header.Get("Vary")) {
		t.Errorf("actor Vary = %q; want Accept", res.Header.Get("Vary"))
	}
	res, body = get("/@alice", `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`)
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "activity+json") {
		t.Errorf("GET /@alice as ld+json = %d %q; want the actor", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, path := range []string{"/@alice", "/", "/search?q=x", "/tags/x"} {
		res, body = get(path, "text/html,application/xhtml+xml,*/*;q=0.8")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body, "<html") {
			t.Errorf("GET %s as a browser = %d %q; want the blog page\n%.300s", path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		if res.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no CSP", path)
		}
	}
	if res, _ := get("/@alice", "text/html"); !varyAccept(res.Header.Get("Vary")) {
		t.Errorf("blog /@alice Vary = %q; want Accept", res.Header.Get("Vary"))
	}
	res, body = get("/no/such/page", "text/html")
	if res.StatusCode != 404 || !strings.Contains(body, "<html") {
		t.Errorf("GET an unknown path as a browser = %d; want the themed 404\n%.300s", res.StatusCode, body)
	}
	res, body = get("/no/such/page", "application/json")
	if res.StatusCode != 404 || !strings.Contains(body, `"not_found"`) {
		t.Errorf("GET an unknown path as JSON = %d %s; want the JSON 404", res.StatusCode, body)
	}
	for _, path := range []string{"/robots.txt", "/sitemap.xml", "/@alice/feed.atom", "/api/pub/personas/alice/posts"} {
		if res, body := get(path, "*/*"); res.StatusCode != 200 {
			t.Errorf("GET %s = %d %.200s; want 200", path, res.StatusCode, body)
		}
	}
}

// TestCGIKeepsParsedTemplates: a one-shot (CGI) process leaves the trees
// of the templates it parsed in data/cache/templates, and the next one
// renders the same page from them.
func TestCGIKeepsParsedTemplates(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	dir := filepath.Join(s.Dir, "data", "cache", "templates")
	page := func() string {
		a := cgiApp(t, s)
		defer a.Close()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/@alice", nil)
		req.Header.Set("Accept", "text/html")
		a.ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "<html") {
			t.Fatalf("GET /@alice under CGI = %d %.300s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	first := page()
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) < 5 {
		t.Fatalf("after one CGI page, %s holds %d entries (%v); want the page's templates", dir, len(ents), err)
	}
	mod := map[string]time.Time{}
	for _, e := range ents {
		info, _ := e.Info()
		mod[e.Name()] = info.ModTime()
	}
	if second := page(); second != first {
		t.Error("the page rendered from the parse cache differs")
	}
	again, _ := os.ReadDir(dir)
	for _, e := range again {
		if info, _ := e.Info(); !info.ModTime().Equal(mod[e.Name()]) {
			t.Errorf("entry %s was written again by the second process", e.Name())
		}
	}
}

// varyAccept reports whether a Vary header names Accept (an artifact's
// adds Accept-Encoding).
func varyAccept(v string) bool {
	for _, f := range strings.Split(v, ",") {
		if strings.TrimSpace(f) == "Accept" {
			return true
		}
	}
	return false
}
