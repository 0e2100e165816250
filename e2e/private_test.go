package e2e

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/murlog/murlog/cgi"
	"github.com/murlog/murlog/internal/apachetest"
)

// TestBlockDeniesDotfiles: on an Apache without the usual server-wide
// "^\.ht" rule, murlog's block alone keeps .htaccess and other dotfiles
// private, while /.well-known/ still reaches murlog (WebFinger needs it).
func TestBlockDeniesDotfiles(t *testing.T) {
	s := apachetest.Start(t, apachetest.Options{NoHtDeny: true,
		Files: map[string]string{".htaccess": "# the owner's\n", ".env": "SECRET=1\n", ".git/config": "[core]\n"}})
	// Control: this Apache serves dotfiles as long as no murlog block exists.
	if resp, _ := get(t, s.URL, "/.env", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("control: GET /.env before murlog ran = %d; want 200 (no server rule hides it)", resp.StatusCode)
	}
	if resp, body := get(t, s.URL, "/murlog.cgi", map[string]string{"Accept": "text/html"}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first GET /murlog.cgi = %d\n%s", resp.StatusCode, body)
	}
	for _, p := range []string{"/.htaccess", "/.env", "/.git/config", "/.git/", "/media/.hidden"} {
		if resp, body := get(t, s.URL, p, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s = %d; want 403\n%s", p, resp.StatusCode, body)
		}
	}
	resp, body := get(t, s.URL, "/.well-known/webfinger?resource=acct:alice@"+s.Addr, map[string]string{"Accept": "application/jrd+json"})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not set up") {
		t.Errorf("GET /.well-known/webfinger = %d %q; want murlog's 503 (not set up yet), not a 403", resp.StatusCode, body)
	}
}

// TestDbRuleGuardsEveryDatabase: the block's *.db rule, not only its data
// directory rule, refuses database files: one outside the data directory,
// and one under a data directory whose name the directory rule cannot
// express (a space). With mod_rewrite and without it (then only the
// <FilesMatch> part works).
func TestDbRuleGuardsEveryDatabase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		without []string
	}{{"with mod_rewrite", nil}, {"without mod_rewrite", []string{"rewrite_module"}}} {
		t.Run(tc.name, func(t *testing.T) {
			s := apachetest.Start(t, apachetest.Options{WithoutModules: tc.without,
				Files: map[string]string{"old-copy.db": "x", "sub/other.db": "x", "notes.db-wal": "x", "site.ini": "x"}})
			c := s.Client()
			ctx := context.Background()
			if _, _, body, err := c.Get(ctx, "/murlog.cgi"); err != nil {
				t.Fatalf("first GET: %v %s", err, body)
			}
			st, _, body, err := c.SubmitForm(ctx, "/murlog.cgi/admin/setup/server", url.Values{"data_dir": {"./my data"}, "media_path": {"./media"}, "scheme": {"http"}})
			if err != nil || st != http.StatusSeeOther {
				t.Fatalf("step 1 with data_dir './my data' = %d %v\n%s", st, err, body)
			}
			ht := readFile(t, s.Path(".htaccess"))
			if strings.Contains(ht, "RewriteRule ^my") {
				t.Fatalf("the block has a rule for 'my data'; this test needs a name the directory rule cannot express:\n%s", ht)
			}
			if _, err := os.Stat(s.Path("my data/murlog.db")); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"/my%20data/murlog.db", "/old-copy.db", "/sub/other.db", "/notes.db-wal", "/site.ini", "/murlog.ini"} {
				if resp, body := get(t, s.URL, p, nil); resp.StatusCode != http.StatusForbidden {
					t.Errorf("GET %s = %d; want 403\n%.200s", p, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestUnwritableDocumentRoot: a document root the CGI user cannot write
// gets a page that names the folder, the user murlog runs as and the fix,
// instead of an unprotected site and Apache's bare 404 everywhere else.
func TestUnwritableDocumentRoot(t *testing.T) {
	s := apachetest.Start(t, apachetest.Options{})
	if s.UID >= 0 {
		// Apache runs murlog as www-data: give the folder back to root.
		if err := os.Chown(s.DocRoot, 0, 0); err != nil {
			t.Fatal(err)
		}
	} else {
		os.Chmod(s.DocRoot, 0o555)
		t.Cleanup(func() { os.Chmod(s.DocRoot, 0o755) })
	}
	for _, lang := range []string{"en", "ja"} {
		resp, body := get(t, s.URL, "/murlog.cgi", map[string]string{"Accept": "text/html", "Accept-Language": lang})
		wants := []string{s.DocRoot, "user id", "chown -R"}
		if s.UID >= 0 {
			wants = append(wants, apachetest.CGIUser)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: GET /murlog.cgi = %d %s; want a 503 HTML page", lang, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q:\n%s", lang, w, body)
			}
		}
	}
	if _, err := os.Stat(s.Path(".htaccess")); err == nil {
		t.Error(".htaccess exists in a folder murlog cannot write")
	}
	// An older murlog block that cannot be updated still routes and
	// protects the site: murlog keeps serving (and logs a warning).
	old := strings.Replace(cgi.Htaccess{Script: apachetest.Script, Base: "/"}.Block(), "RewriteRule (^|/)", "# was: ", 1)
	if err := os.WriteFile(s.Path(".htaccess"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if resp, body := get(t, s.URL, "/admin/setup/server", map[string]string{"Accept": "text/html"}); resp.StatusCode != http.StatusOK {
		t.Errorf("with an older block: GET /admin/setup/server = %d; want 200 (served through the old block)\n%s", resp.StatusCode, body)
	}
	if !strings.Contains(s.ErrorLog(), "cannot update the murlog block") {
		t.Error("no warning that the block could not be updated")
	}
}
