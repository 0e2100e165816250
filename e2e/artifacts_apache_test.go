package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/murlog/murlog/artifact"
	"github.com/murlog/murlog/artifact/fsstore"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/cgi"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
)

// Accept headers as the fediverse and browsers send them.
const (
	acceptMastodon = `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams", text/html;q=0.1`
	acceptMisskey  = `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`
	acceptBrowser  = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	// acceptMixed names ActivityPub and HTML at full weight: Apache leaves
	// the choice to murlog (which answers ActivityPub).
	acceptMixed = "text/html, application/activity+json"
)

// countedSite is a set-up murlog under Apache whose murlog.cgi is a
// wrapper that records each start before it runs the real binary, so a
// test knows exactly how many requests reached murlog.
type countedSite struct {
	*apachetest.Server
	starts string // one line per start of murlog.cgi
}

// Starts returns how many times Apache started murlog.cgi so far.
func (c *countedSite) Starts(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(c.starts)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// startCounted starts Apache the way a strict shared host configures it
// (AllowOverride FileInfo AuthConfig only, mod_deflate compressing every
// answer it may) with murlog behind a counting wrapper, and sets it up.
func startCounted(t *testing.T) (*countedSite, *client.Client) {
	t.Helper()
	doc := apachetest.NewDir(t)
	s := apachetest.Start(t, apachetest.Options{DocRoot: doc, Config: fmt.Sprintf(
		"LoadModule deflate_module %q\n<Directory %q>\n  AllowOverride FileInfo AuthConfig\n  SetOutputFilter DEFLATE\n</Directory>",
		filepath.Join(apachetest.ModulesDir(), "mod_deflate.so"), doc)})
	for _, d := range []string{"bin", "count"} {
		if err := os.Mkdir(filepath.Join(s.Root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real := filepath.Join(s.Root, "bin", "murlog")
	if err := os.Rename(s.Install(t, apachetest.Murlog(t), "murlog.bin"), real); err != nil {
		t.Fatal(err)
	}
	cs := &countedSite{Server: s, starts: filepath.Join(s.Root, "count", "starts")}
	s.Chown(t, filepath.Join(s.Root, "count"))
	s.WriteFile(t, apachetest.Script, fmt.Sprintf("#!/bin/sh\necho start >> '%s'\nexec '%s' \"$@\"\n", cs.starts, real), 0o755)
	return cs, setUpOn(t, s)
}

// fetch sends one request without following redirects and without the
// transport's own gzip handling, so the test sees the bytes Apache sent.
func fetch(t *testing.T, method, u string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, u, err)
	}
	return resp, b
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	return out
}

func unbrotli(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("brotli body: %v", err)
	}
	return out
}

func brotlied(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := brotli.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Under CGI, Apache answers every kind of public read that has an
// artifact from the artifact folder, with murlog's headers, without
// starting murlog.cgi; a miss, another query string or another method
// reaches murlog, which answers as before; the folder itself, its hidden
// files and hostile paths are never served.
func TestArtifactsServedByApacheWithoutMurlog(t *testing.T) {
	t.Parallel()
	s, owner := startCounted(t)
	ctx := context.Background()
	var note postResult
	if err := owner.Call(ctx, "posts.create", map[string]any{"kind": "note", "content": "a note for the miss"}, &note); err != nil {
		t.Fatal(err)
	}
	// Setup's own requests ran with the site set up: the block maps the
	// artifact folder, and the folder has its rules.
	site := s.Path(cgi.SiteDir)
	if ht := readFile(t, s.Path(".htaccess")); !strings.Contains(ht, "RewriteCond "+site+"/html/index.html -f") {
		t.Fatalf(".htaccess has no artifact rules for %s:\n%s", site, ht)
	}
	if st, err := os.Stat(filepath.Join(site, ".htaccess")); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("%s/.htaccess: %v, %v; want it written, mode 0644", site, st, err)
	}

	const tag, slug = "日本語", "日本語のタイトル"
	const (
		html = "text/html; charset=utf-8"
		ap   = "application/activity+json; charset=utf-8"
		neg  = "Accept, Accept-Encoding"
		ae   = "Accept-Encoding"
	)
	tagPath := "/tags/" + url.PathEscape(tag)
	wf := "/.well-known/webfinger?resource="
	hits := []struct {
		method, path string
		header       map[string]string
		key          string
		ct, vary     string
		enc          string // answered with the .br or .gz variant: its Content-Encoding
	}{
		{"GET", "/", nil, "html/index.html", html, ae, ""},
		{"HEAD", "/", nil, "html/index.html", html, ae, ""},
		{"GET", "/?mode=plain", nil, "html/index~plain.html", html, ae, ""},
		{"GET", "/?order=oldest", nil, "html/index~oldest.html", html, ae, ""},
		{"GET", "/?mode=plain&order=oldest", nil, "html/index~plain~oldest.html", html, ae, ""},
		{"GET", "/@alice", map[string]string{"Accept": acceptBrowser}, "html/@alice/index.html", html, neg, ""},
		{"GET", "/@alice", nil, "html/@alice/index.html", html, neg, ""},
		{"GET", "/@alice", map[string]string{"Accept": acceptBrowser, "Accept-Encoding": "gzip, deflate, br"}, "html/@alice/index.html", html, neg, "br"},
		{"GET", "/@alice", map[string]string{"Accept": acceptBrowser, "Accept-Encoding": "gzip"}, "html/@alice/index.html", html, neg, "gzip"},
		{"GET", "/@alice?mode=plain", map[string]string{"Accept": acceptBrowser}, "html/@alice/index~plain.html", html, neg, ""},
		{"GET", "/@alice/hello", map[string]string{"Accept": acceptBrowser}, "html/@alice/hello/index.html", html, neg, ""},
		{"GET", "/@alice/" + url.PathEscape(slug), map[string]string{"Accept": acceptBrowser}, "html/@alice/" + slug + "/index.html", html, neg, ""},
		{"GET", tagPath, map[string]string{"Accept": acceptBrowser}, "html/tags/" + tag + "/index.html", html, ae, ""},
		{"GET", tagPath, map[string]string{"Accept": acceptBrowser, "Accept-Encoding": "gzip"}, "html/tags/" + tag + "/index.html", html, ae, "gzip"},
		{"GET", tagPath, map[string]string{"Accept": acceptBrowser, "Accept-Encoding": "br, gzip"}, "html/tags/" + tag + "/index.html", html, ae, "gzip"}, // no .br beside it
		{"GET", tagPath + "?mode=plain&order=oldest", nil, "html/tags/" + tag + "/index~plain~oldest.html", html, ae, ""},
		{"GET", "/@alice", map[string]string{"Accept": acceptMastodon}, "ap/@alice.as", ap, neg, ""},
		{"GET", "/@alice", map[string]string{"Accept": acceptMisskey}, "ap/@alice.as", ap, neg, ""},
		{"GET", "/@alice", map[string]string{"Accept": `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`}, "ap/@alice.as", ap, neg, ""},
		{"GET", "/@alice/outbox", map[string]string{"Accept": acceptMastodon}, "ap/@alice/outbox.as", ap, neg, ""},
		{"GET", "/@alice/followers", map[string]string{"Accept": "application/activity+json"}, "ap/@alice/followers.as", ap, neg, ""},
		{"GET", "/@alice/featured", map[string]string{"Accept": acceptMisskey}, "ap/@alice/featured.as", ap, neg, ""},
		{"GET", "/@alice/" + note.ID, map[string]string{"Accept": acceptMastodon}, "ap/@alice/" + note.ID + ".as", ap, neg, ""},
		{"GET", "/@alice/feed.rss", nil, "feeds/@alice/feed.rss", "application/rss+xml; charset=utf-8", neg, ""},
		{"GET", "/@alice/feed.atom", nil, "feeds/@alice/feed.atom", "application/atom+xml; charset=utf-8", neg, ""},
		{"GET", tagPath + "/feed.rss", nil, "feeds/tags/" + tag + "/feed.rss", "application/rss+xml; charset=utf-8", ae, ""},
		{"GET", tagPath + "/feed.atom", nil, "feeds/tags/" + tag + "/feed.atom", "application/atom+xml; charset=utf-8", ae, ""},
		{"GET", "/sitemap.xml", nil, "misc/sitemap.xml", "application/xml; charset=utf-8", ae, ""},
		{"GET", "/robots.txt", nil, "misc/robots.txt", "text/plain; charset=utf-8", ae, ""},
		{"GET", "/.well-known/nodeinfo", nil, "misc/nodeinfo.json", "application/json", ae, ""},
		{"GET", "/nodeinfo/2.0", nil, "misc/nodeinfo-2.0.json", `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"`, ae, ""},
		{"GET", "/nodeinfo/2.1", nil, "misc/nodeinfo-2.1.json", `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"`, ae, ""},
		{"GET", wf + "acct:alice@" + s.Addr, nil, "wf/alice.jrd", "application/jrd+json; charset=utf-8", ae, ""},
		{"GET", wf + "acct%3Aalice%40" + strings.ReplaceAll(s.Addr, ":", "%3A"), nil, "wf/alice.jrd", "application/jrd+json; charset=utf-8", ae, ""},
		{"GET", wf + "acct%3aalice%40" + strings.ReplaceAll(s.Addr, ":", "%3a"), nil, "wf/alice.jrd", "application/jrd+json; charset=utf-8", ae, ""},
		{"GET", "/api/pub/personas/alice/posts?limit=20", nil, "api/@alice/posts-20.json", "application/json", ae, ""},
		{"GET", "/api/pub/personas/alice/config", nil, "api/@alice/config.json", "application/json", ae, ""},
		{"GET", "/api/pub/runtime", nil, "api/runtime.json", "application/json", ae, ""},
		{"GET", "/themes/tiny/style.0123456789abcdef.css", nil, "themes/tiny/style.0123456789abcdef.css", "text/css; charset=utf-8", ae, ""},
		{"GET", "/themes/tiny/style.0123456789abcdef.css", map[string]string{"Accept-Encoding": "gzip, br"}, "themes/tiny/style.0123456789abcdef.css", "text/css; charset=utf-8", ae, "br"},
	}
	// What murlog itself answers for the same requests, before any
	// artifact exists: Apache must send the same type and CORS header.
	type answer struct{ ct, cors string }
	fromMurlog := map[int]answer{}
	for i, tc := range hits {
		if tc.method != http.MethodGet || tc.enc != "" {
			continue
		}
		resp, _ := fetch(t, tc.method, s.URL+tc.path, tc.header)
		if resp.StatusCode == http.StatusOK {
			fromMurlog[i] = answer{resp.Header.Get("Content-Type"), resp.Header.Get("Access-Control-Allow-Origin")}
		}
	}
	if len(fromMurlog) < 20 {
		t.Fatalf("murlog answered only %d of the requests with 200 before any artifact; want most of them", len(fromMurlog))
	}

	store, err := fsstore.New(site)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// What murlog rendered itself so far (posts.create renders its pages
	// before it answers) goes: the test plants its own bodies, and the
	// keys it does not plant are misses.
	var made []artifact.Key
	store.List(ctx, "", func(k artifact.Key) error { made = append(made, k); return nil })
	for _, k := range made {
		if err := store.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	body := func(key string) []byte { return []byte("artifact " + key + " — 本文\n") }
	plant := func(key string, b []byte) {
		t.Helper()
		if _, err := store.Put(ctx, artifact.MustParseKey(key), "application/octet-stream", b); err != nil {
			t.Fatalf("plant %s: %v", key, err)
		}
	}
	keys := []string{
		"html/index.html", "html/index~plain.html", "html/index~oldest.html", "html/index~plain~oldest.html",
		"html/@alice/index.html", "html/@alice/index~plain.html", "html/@alice/hello/index.html", "html/@alice/" + slug + "/index.html",
		"html/tags/" + tag + "/index.html", "html/tags/" + tag + "/index~plain~oldest.html",
		"ap/@alice.as", "ap/@alice/outbox.as", "ap/@alice/followers.as", "ap/@alice/featured.as", "ap/@alice/" + note.ID + ".as",
		"feeds/@alice/feed.rss", "feeds/@alice/feed.atom", "feeds/tags/" + tag + "/feed.rss", "feeds/tags/" + tag + "/feed.atom",
		"misc/sitemap.xml", "misc/robots.txt", "misc/nodeinfo.json", "misc/nodeinfo-2.0.json", "misc/nodeinfo-2.1.json",
		"wf/alice.jrd", "api/@alice/posts-20.json", "api/@alice/config.json", "api/runtime.json",
		"themes/tiny/style.0123456789abcdef.css",
	}
	for _, k := range keys {
		plant(k, body(k))
	}
	// Precompressed variants beside three of them; brotli beside two.
	for _, k := range []string{"html/@alice/index.html", "html/tags/" + tag + "/index.html", "themes/tiny/style.0123456789abcdef.css"} {
		plant(k+".gz", gzipped(t, body(k)))
	}
	for _, k := range []string{"html/@alice/index.html", "themes/tiny/style.0123456789abcdef.css"} {
		plant(k+".br", brotlied(t, body(k)))
	}
	s.Chown(t, site)

	before := s.Starts(t)
	for i, tc := range hits {
		t.Run("hit "+tc.method+" "+tc.path+" "+tc.header["Accept"]+" "+tc.header["Accept-Encoding"], func(t *testing.T) {
			resp, got := fetch(t, tc.method, s.URL+tc.path, tc.header)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d; want 200\n%.300s", resp.StatusCode, got)
			}
			if enc := resp.Header.Get("Content-Encoding"); enc != tc.enc {
				t.Errorf("Content-Encoding %q; want %q", enc, tc.enc)
			}
			// Decompressed once it is the artifact: mod_deflate did not
			// compress the precompressed file again.
			switch tc.enc {
			case "gzip":
				got = gunzip(t, got)
			case "br":
				got = unbrotli(t, got)
			}
			want := body(tc.key)
			if tc.method == http.MethodHead {
				want = nil
			}
			if !bytes.Equal(got, want) {
				t.Errorf("body %q; want %q (the artifact %s)", got, want, tc.key)
			}
			theme := strings.HasPrefix(tc.key, "themes/")
			cors := strings.HasPrefix(tc.key, "wf/") || strings.HasPrefix(tc.key, "misc/nodeinfo")
			wantHdr := map[string]string{
				"Content-Type": tc.ct, "Vary": tc.vary, "X-Content-Type-Options": "nosniff",
				"Referrer-Policy": "strict-origin-when-cross-origin", "Cache-Control": "no-cache",
				"Content-Security-Policy": blog.BaseCSP, "Access-Control-Allow-Origin": "",
			}
			switch {
			case theme:
				wantHdr["Cache-Control"], wantHdr["Content-Security-Policy"] = "public, max-age=31536000, immutable", cgi.AssetCSP
			case tc.ct == html:
				wantHdr["Content-Security-Policy"] = pageCSPOf(t, s)
			}
			if cors {
				wantHdr["Access-Control-Allow-Origin"] = "*"
			}
			for name, want := range wantHdr {
				got := strings.Join(resp.Header.Values(name), ", ")
				if name == "Vary" {
					// Apache joins the tokens it merges with a bare comma.
					got = strings.Join(strings.FieldsFunc(got, func(r rune) bool { return r == ',' || r == ' ' }), ", ")
				}
				if got != want {
					t.Errorf("%s %q; want %q", name, got, want)
				}
			}
			if m, ok := fromMurlog[i]; ok && (m.ct != tc.ct || m.cors != wantHdr["Access-Control-Allow-Origin"]) {
				t.Errorf("murlog answers with Content-Type %q and Access-Control-Allow-Origin %q; the test wants %q and %q",
					m.ct, m.cors, tc.ct, wantHdr["Access-Control-Allow-Origin"])
			}
			if resp.Header.Get("ETag") == "" {
				t.Error("no ETag; want Apache's")
			}
		})
	}
	// Revalidation is answered by Apache too.
	resp, _ := fetch(t, "GET", s.URL+"/@alice/hello", nil)
	if resp, _ := fetch(t, "GET", s.URL+"/@alice/hello", map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("GET /@alice/hello with its ETag: status %d; want 304", resp.StatusCode)
	}
	if n := s.Starts(t) - before; n != 0 {
		t.Errorf("murlog.cgi started %d times for %d artifact hits; want 0", n, len(hits)+2)
	}

	// Refused by Apache itself: the folder asked for directly, its hidden
	// files, precompressed files by name, and hostile paths.
	ini := readFile(t, s.Path("murlog.ini"))
	before = s.Starts(t)
	for _, path := range []string{
		"/_site/html/index.html", "/_site/html/.meta-index.html", "/_site/html/@alice/index.html.gz", "/_site/",
		"/_site/.htaccess", "/@alice/..%2f..%2fmurlog.ini", "/tags/..%2f..%2fmurlog.ini", "/@alice/%00", "/tags/%00",
		"/themes/..%2f..%2f/murlog.ini",
	} {
		resp, got := fetch(t, "GET", s.URL+path, map[string]string{"Accept": acceptMastodon})
		if resp.StatusCode < 400 || bytes.Contains(got, []byte("artifact ")) || bytes.Contains(got, []byte(ini)) {
			t.Errorf("GET %s: status %d, body %.200q; want it refused", path, resp.StatusCode, got)
		}
	}
	if n := s.Starts(t) - before; n != 0 {
		t.Errorf("murlog.cgi started %d times for refused paths; want 0 (Apache refuses them)", n)
	}

	// Misses reach murlog, once each, and murlog answers as it always did.
	misses := []struct {
		method, path string
		header       map[string]string
		status       int
		want         string // in the body
	}{
		{"GET", "/@alice/following", map[string]string{"Accept": acceptMastodon}, 200, `"OrderedCollection"`},
		// Both artifacts exist; murlog decides what this client gets: the
		// ActivityPub document ("activity", checked below: its own
		// artifact layer may answer with the planted one, or the worker
		// the writes spawned may have rendered it again meanwhile).
		{"GET", "/@alice", map[string]string{"Accept": acceptMixed}, 200, ""},
		// The note's ActivityPub artifact exists, but these clients do not
		// ask for ActivityPub alone: murlog decides (ActivityPub again for
		// the mixed one), or renders the page.
		{"GET", "/@alice/" + note.ID, map[string]string{"Accept": acceptMixed}, 200, ""},
		{"GET", "/@alice/" + note.ID, map[string]string{"Accept": acceptBrowser}, 200, "a note for the miss"},
		{"GET", "/?after=zzz", map[string]string{"Accept": acceptBrowser}, 200, "<html"},
		{"GET", "/?order=oldest&mode=plain", map[string]string{"Accept": acceptBrowser}, 200, "<html"},
		{"GET", "/@alice/outbox?page=true", map[string]string{"Accept": acceptMastodon}, 200, `"OrderedCollectionPage"`},
		{"GET", wf + "acct:alice@other.example", nil, 404, ""},
		{"GET", wf + "acct:bob@" + s.Addr, nil, 404, ""},
		{"GET", "/themes/tiny/style.0123456789abcdef.css.gz", nil, 404, ""},
		{"GET", "/themes/tiny/style.0123456789abcdef.css.br", nil, 404, ""},
		{"POST", "/api/pub/runtime", nil, 0, ""},
	}
	for _, tc := range misses {
		t.Run("miss "+tc.method+" "+tc.path+" "+tc.header["Accept"], func(t *testing.T) {
			n := s.Starts(t)
			resp, got := fetch(t, tc.method, s.URL+tc.path, tc.header)
			if tc.status != 0 && resp.StatusCode != tc.status || !bytes.Contains(got, []byte(tc.want)) {
				t.Errorf("status %d; want %d with %q\n%.300s", resp.StatusCode, tc.status, tc.want, got)
			}
			mixed := tc.header["Accept"] == acceptMixed
			if mixed && !strings.Contains(resp.Header.Get("Content-Type"), "activity+json") && !bytes.Contains(got, []byte("artifact ap/")) {
				t.Errorf("Content-Type %q; want murlog's choice for this Accept, ActivityPub", resp.Header.Get("Content-Type"))
			}
			if bytes.Contains(got, []byte("artifact ")) && !mixed {
				t.Errorf("answered with an artifact: %.200q", got)
			}
			if d := s.Starts(t) - n; d != 1 {
				t.Errorf("murlog.cgi started %d times; want 1 (a miss is murlog's)", d)
			}
		})
	}
}

// pageCSPOf is the page policy murlog wrote into the artifact folder's
// rules: the one Apache must send with HTML artifacts.
func pageCSPOf(t *testing.T, s *countedSite) string {
	t.Helper()
	for _, line := range strings.Split(readFile(t, filepath.Join(s.Path(cgi.SiteDir), ".htaccess")), "\n") {
		if v, ok := strings.CutPrefix(line, `Header set Content-Security-Policy "`); ok && strings.HasSuffix(v, " env=MURLOG_PAGE") {
			return v[:strings.Index(v, `"`)]
		}
	}
	t.Fatal("no page policy in the artifact folder's .htaccess")
	return ""
}

// stubCGI stands in for murlog.cgi where only whether it ran matters: it
// records its start and answers "from murlog".
func stubCGI(starts string) string {
	return fmt.Sprintf("#!/bin/sh\necho start >> '%s'\nprintf 'Status: 200 OK\\r\\nContent-Type: text/plain\\r\\n\\r\\nfrom murlog\\n'\n", starts)
}

// stubSite starts Apache as a strict shared host configures it
// (AllowOverride FileInfo AuthConfig) without the modules named, with a
// counting stub as murlog.cgi in the folder sub of the document root
// ("" for the root itself), both .htaccess files as murlog writes them
// for a set-up site, and an empty artifact store.
func stubSite(t *testing.T, sub string, without []string) (*countedSite, *fsstore.Store) {
	t.Helper()
	doc := apachetest.NewDir(t)
	s := apachetest.Start(t, apachetest.Options{DocRoot: doc, WithoutModules: without,
		Config: fmt.Sprintf("<Directory %q>\n  AllowOverride FileInfo AuthConfig\n</Directory>", doc)})
	cs := &countedSite{Server: s, starts: filepath.Join(s.Root, "count", "starts")}
	if err := os.Mkdir(filepath.Dir(cs.starts), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Chown(t, filepath.Dir(cs.starts))
	entry := s.Path(sub)
	s.WriteFile(t, filepath.Join(sub, apachetest.Script), stubCGI(cs.starts), 0o755)
	base := "/"
	if sub != "" {
		base = "/" + sub + "/"
	}
	h := cgi.Htaccess{Script: apachetest.Script, Base: base, DataDir: "data", ArtifactDir: filepath.Join(entry, cgi.SiteDir), Domain: s.Addr,
		PageCSP: "default-src 'none'; script-src 'self'; style-src 'self'", BaseCSP: blog.BaseCSP}
	if _, err := cgi.EnsureSiteDir(entry, h); err != nil {
		t.Fatal(err)
	}
	if _, err := cgi.Ensure(entry, h); err != nil {
		t.Fatal(err)
	}
	store, err := fsstore.New(h.ArtifactDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return cs, store
}

// murlog installed in a folder of the document root (/blog/): the rules
// map that folder's URLs onto its own artifact folder.
func TestArtifactRulesInSubfolder(t *testing.T) {
	t.Parallel()
	s, store := stubSite(t, "blog", nil)
	for _, k := range []string{"html/index.html", "html/@alice/index.html", "html/@alice/index.html.gz"} {
		b := []byte("artifact " + k)
		if strings.HasSuffix(k, ".gz") {
			b = gzipped(t, []byte("artifact "+strings.TrimSuffix(k, ".gz")))
		}
		if _, err := store.Put(context.Background(), artifact.MustParseKey(k), "text/html", b); err != nil {
			t.Fatal(err)
		}
	}
	s.Chown(t, s.DocRoot)
	for _, tc := range []struct {
		path, ae string
		status   int
		body     string
	}{
		{"/blog/", "", 200, "artifact html/index.html"},
		{"/blog/@alice", "", 200, "artifact html/@alice/index.html"},
		{"/blog/@alice", "gzip", 200, "artifact html/@alice/index.html"},
		{"/blog/_site/html/index.html", "", 404, ""},
		{"/blog/@bob", "", 200, "from murlog\n"},
	} {
		n := s.Starts(t)
		resp, body := fetch(t, "GET", s.URL+tc.path, map[string]string{"Accept-Encoding": tc.ae})
		if tc.ae != "" && resp.Header.Get("Content-Encoding") == "gzip" {
			body = gunzip(t, body)
		}
		if resp.StatusCode != tc.status || tc.body != "" && string(body) != tc.body {
			t.Errorf("GET %s (Accept-Encoding %q): %d %.100q; want %d %q", tc.path, tc.ae, resp.StatusCode, body, tc.status, tc.body)
		}
		if got, want := resp.Header.Get("Content-Encoding"), tc.ae; tc.status == 200 && tc.body != "from murlog\n" && got != want {
			t.Errorf("GET %s: Content-Encoding %q; want %q", tc.path, got, want)
		}
		if d, want := s.Starts(t)-n, map[bool]int{true: 1, false: 0}[tc.body == "from murlog\n"]; d != want {
			t.Errorf("GET %s: murlog.cgi started %d times; want %d", tc.path, d, want)
		}
	}
}

// Without mod_headers Apache still answers artifacts (right type, no
// extra headers); without mod_rewrite nothing maps onto them and murlog
// answers its own address; in neither case do the two .htaccess files
// make Apache fail, and the store's hidden files stay refused.
func TestArtifactRulesWithoutModules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		without []string
	}{
		{"all modules", nil},
		{"without mod_headers", []string{"headers_module"}},
		{"without mod_rewrite", []string{"rewrite_module"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, store := stubSite(t, "", tc.without)
			if _, err := store.Put(context.Background(), artifact.MustParseKey("html/index.html"), "text/html", []byte("the home artifact")); err != nil {
				t.Fatal(err)
			}
			s.Chown(t, s.DocRoot)

			rewrite, headers := !slices.Contains(tc.without, "rewrite_module"), !slices.Contains(tc.without, "headers_module")
			resp, body := fetch(t, "GET", s.URL+"/", nil)
			switch {
			case rewrite && (resp.StatusCode != 200 || string(body) != "the home artifact"):
				t.Errorf("GET /: %d %q; want the artifact", resp.StatusCode, body)
			case rewrite && resp.Header.Get("Content-Type") != "text/html; charset=utf-8":
				t.Errorf("GET /: Content-Type %q; want text/html; charset=utf-8", resp.Header.Get("Content-Type"))
			case !rewrite && (resp.StatusCode == 200 && string(body) == "the home artifact" || resp.StatusCode >= 500):
				t.Errorf("GET / without mod_rewrite: %d %q; want no artifact and no server error", resp.StatusCode, body)
			}
			if got, want := resp.Header.Get("Cache-Control") == "no-cache", rewrite && headers; got != want {
				t.Errorf("GET /: Cache-Control %q; want no-cache: %v", resp.Header.Get("Cache-Control"), want)
			}
			n := s.Starts(t)
			if resp, body := fetch(t, "GET", s.URL+"/murlog.cgi", nil); resp.StatusCode != 200 || string(body) != "from murlog\n" {
				t.Errorf("GET /murlog.cgi: %d %q; want murlog's answer", resp.StatusCode, body)
			}
			if d := s.Starts(t) - n; d != 1 {
				t.Errorf("murlog.cgi started %d times for its own address; want 1", d)
			}
			for _, p := range []string{"/_site/html/.meta-index.html", "/_site/.htaccess"} {
				if resp, body := fetch(t, "GET", s.URL+p, nil); resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
					t.Errorf("GET %s: %d %.100q; want 403 or 404", p, resp.StatusCode, body)
				}
			}
		})
	}
}
