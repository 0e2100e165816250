package cgi

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestEnsureKeepsOwnerLinesAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	own := "# my own rule\nRedirect 301 /old /new\n"
	os.WriteFile(filepath.Join(dir, ".htaccess"), []byte(own), 0o644)
	h := Htaccess{Script: "murlog.cgi", Base: "/", DataDir: "data"}
	wrote, err := Ensure(dir, h)
	if err != nil || !wrote {
		t.Fatalf("first Ensure = %v, %v; want it to write", wrote, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, ".htaccess"))
	if !strings.HasPrefix(string(got), own) {
		t.Errorf("owner lines not kept at the top:\n%s", got)
	}
	if strings.Count(string(got), beginMarker) != 1 || !strings.Contains(string(got), "RewriteRule ^data(/|$) - [F,L]") {
		t.Errorf("block missing or duplicated:\n%s", got)
	}
	if wrote, err := Ensure(dir, h); wrote || err != nil {
		t.Errorf("second Ensure = %v, %v; want no write when nothing changed", wrote, err)
	}
	// The owner adds a line after the block; the data dir moves: the block
	// is replaced in place, the new line stays.
	os.WriteFile(filepath.Join(dir, ".htaccess"), append(got, []byte("# added later\n")...), 0o644)
	h.DataDir = ""
	if wrote, err := Ensure(dir, h); !wrote || err != nil {
		t.Fatalf("Ensure after a change = %v, %v", wrote, err)
	}
	got, _ = os.ReadFile(filepath.Join(dir, ".htaccess"))
	s := string(got)
	if !strings.HasPrefix(s, own) || !strings.HasSuffix(s, "# added later\n") || strings.Count(s, beginMarker) != 1 || strings.Contains(s, "^data(") {
		t.Errorf("after replacing the block:\n%s", s)
	}
	st, _ := os.Stat(filepath.Join(dir, ".htaccess"))
	if st.Mode().Perm() != 0o644 {
		t.Errorf(".htaccess mode = %v; want 0644 so Apache can read it", st.Mode().Perm())
	}
}

func TestBlockProtectsMurlogFiles(t *testing.T) {
	b := Htaccess{Script: "murlog.cgi", Base: "/blog/", DataDir: "data"}.Block()
	for _, want := range []string{
		`\.ini`, `\.reset`, `\.lock`, `\.db`, `\.db-wal`, `\.db-shm`, "Require all denied",
		"RequestHeader unset Proxy", "SetEnv nokeepalive 1", `<Files "murlog.cgi">`,
		"E=HTTP_AUTHORIZATION:%{HTTP:Authorization}", "%{REQUEST_FILENAME} -f", "RewriteRule ^ murlog.cgi [END]",
		"RewriteBase /blog/", "RewriteRule ^data(/|$) - [F,L]",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("block lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(Htaccess{Script: "m.cgi", Base: "/", DataDir: "da ta$(x)"}.Block(), "da ta") {
		t.Error("an unsafe data dir name was written into a rewrite rule")
	}
}

func TestDataDirRel(t *testing.T) {
	for _, tc := range []struct{ dir, data, want string }{
		{"/srv/www", "/srv/www/data", "data"},
		{"/srv/www", "/srv/www/priv/data", "priv/data"},
		{"/srv/www", "/srv/data", ""},
		{"/srv/www", "/srv/www", ""},
	} {
		if got := DataDirRel(tc.dir, tc.data); got != tc.want {
			t.Errorf("DataDirRel(%q, %q) = %q; want %q", tc.dir, tc.data, got, tc.want)
		}
	}
}

func TestStripScript(t *testing.T) {
	var got string
	h := StripScript("/murlog.cgi", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.URL.Path }))
	for _, tc := range []struct{ in, want string }{
		{"/murlog.cgi", "/"},
		{"/murlog.cgi/admin/setup", "/admin/setup"},
		{"/admin/setup", "/admin/setup"},
		{"/murlog.cgix", "/murlog.cgix"},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tc.in, nil))
		if got != tc.want {
			t.Errorf("path %q routed as %q; want %q", tc.in, got, tc.want)
		}
	}
	if BaseOf("/murlog.cgi") != "/" || BaseOf("/blog/murlog.cgi") != "/blog/" {
		t.Errorf("BaseOf = %q, %q", BaseOf("/murlog.cgi"), BaseOf("/blog/murlog.cgi"))
	}
}

func TestFixEnv(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://evil.example")
	t.Setenv("HTTP_AUTHORIZATION", "")
	t.Setenv("REDIRECT_HTTP_AUTHORIZATION", "Bearer mlg_x")
	FixEnv()
	if v, ok := os.LookupEnv("HTTP_PROXY"); ok {
		t.Errorf("HTTP_PROXY = %q after FixEnv; want it removed (httpoxy)", v)
	}
	if v := os.Getenv("HTTP_AUTHORIZATION"); v != "Bearer mlg_x" {
		t.Errorf("HTTP_AUTHORIZATION = %q; want it restored from REDIRECT_HTTP_AUTHORIZATION", v)
	}
}

// TestPrivateFilePatterns checks both of the block's rules for murlog's
// private files (the <FilesMatch> and the RewriteRule, each the only guard
// when the other module is missing) against the names they must refuse.
func TestPrivateFilePatterns(t *testing.T) {
	block := Htaccess{Script: "murlog.cgi", Base: "/"}.Block()
	var patterns []string
	for _, line := range strings.Split(block, "\n") {
		if p, ok := strings.CutPrefix(line, `<FilesMatch "`); ok && strings.Contains(p, `\.db`) {
			patterns = append(patterns, strings.TrimSuffix(p, `">`))
		}
		if p, ok := strings.CutPrefix(line, "RewriteRule "); ok && strings.Contains(p, `\.db`) {
			patterns = append(patterns, strings.Fields(p)[0])
		}
	}
	if len(patterns) != 2 {
		t.Fatalf("found %d private-file patterns in the block; want the FilesMatch and the RewriteRule:\n%s", len(patterns), block)
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		for _, name := range []string{"murlog.db", "my data/murlog.db", "old-copy.db", "murlog.db-wal", "murlog.db-shm",
			"murlog.db-journal", "murlog.ini", "murlog.reset", "worker.lock"} {
			if !re.MatchString(name) {
				t.Errorf("pattern %s lets %q through", p, name)
			}
		}
		for _, name := range []string{"index.html", "media/a.png", "dbx", "murlog.cgi"} {
			if re.MatchString(name) {
				t.Errorf("pattern %s refuses %q", p, name)
			}
		}
	}
	for _, want := range []string{`<FilesMatch "^\.(?!well-known$)">`, `RewriteRule (^|/)\.(?!well-known(/|$)) - [F,L]`} {
		if !strings.Contains(block, want) {
			t.Errorf("block lacks the dotfile rule %s", want)
		}
	}
}

func TestHasBlock(t *testing.T) {
	dir := t.TempDir()
	if HasBlock(dir) {
		t.Error("HasBlock without a .htaccess = true")
	}
	os.WriteFile(filepath.Join(dir, ".htaccess"), []byte("# the owner's\n"), 0o644)
	if HasBlock(dir) {
		t.Error("HasBlock with only the owner's lines = true")
	}
	os.WriteFile(filepath.Join(dir, ".htaccess"), []byte("# the owner's\n"+beginMarker+"\nold rules\n"+endMarker+"\n"), 0o644)
	if !HasBlock(dir) {
		t.Error("HasBlock with an older block = false")
	}
}
