package cgi

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The artifact rules are written only for a set-up site whose folder a
// RewriteCond can carry, and the skip over them for other methods counts
// exactly the rules that follow.
func TestBlockArtifactRules(t *testing.T) {
	t.Parallel()
	base := Htaccess{Script: "murlog.cgi", Base: "/", DataDir: "data"}
	if b := base.Block(); strings.Contains(b, SiteDir) {
		t.Errorf("block without ArtifactDir mentions %s:\n%s", SiteDir, b)
	}
	for _, dir := range []string{"/srv/my site/_site", `/srv/a"b/_site`, "/srv/$HOME/_site", "/srv/100%/_site", `/srv/a\b/_site`, "/srv/a\tb/_site", "relative/_site"} {
		h := base
		h.ArtifactDir = dir
		b := h.Block()
		if strings.Contains(b, "RewriteRule ^$ _site/") || strings.Contains(b, "REDIRECT_STATUS") {
			t.Errorf("ArtifactDir %q: artifact rules written; want none", dir)
		}
		if !strings.Contains(b, "# No artifact rules:") {
			t.Errorf("ArtifactDir %q: no comment saying why the rules are missing:\n%s", dir, b)
		}
		if err := CheckArtifactDir(dir); err == nil {
			t.Errorf("CheckArtifactDir(%q) = nil; want an error", dir)
		}
	}

	h := base
	h.ArtifactDir, h.Domain = "/srv/www/ブログ/_site", "example.com:8443"
	if err := CheckArtifactDir(h.ArtifactDir); err != nil {
		t.Fatalf("CheckArtifactDir(%q) = %v; want nil", h.ArtifactDir, err)
	}
	b := h.Block()
	lines := strings.Split(b, "\n")
	skip, at := -1, -1
	for i, l := range lines {
		if _, n, ok := strings.Cut(l, "RewriteRule ^ - [S="); ok {
			at = i
			var err error
			if skip, err = strconv.Atoi(strings.TrimSuffix(n, "]")); err != nil {
				t.Fatalf("skip rule %q: %v", l, err)
			}
		}
	}
	if at < 0 {
		t.Fatalf("no skip rule for other methods:\n%s", b)
	}
	var rules []string
	for _, l := range lines[at+1:] {
		if strings.HasPrefix(l, "RewriteRule ") {
			rules = append(rules, l)
		}
	}
	if last := rules[len(rules)-1]; last != "RewriteRule ^ murlog.cgi [END]" {
		t.Fatalf("last rule %q; want the catch-all", last)
	}
	if got := len(rules) - 1; skip != got {
		t.Errorf("skip rule skips %d rules; %d artifact rules follow it", skip, got)
	}
	for _, want := range []string{
		"RewriteCond /srv/www/ブログ/_site/html/index.html -f", "RewriteRule ^$ _site/html/index.html [L]",
		"RewriteCond /srv/www/ブログ/_site/wf/%1.jrd -f",
		`(?:@|%40)example\.com(?::|%3A)8443$ [NC]`,
		"RewriteCond %{ENV:REDIRECT_STATUS} ^$", "RewriteRule ^_site(/|$) - [R=404,L]",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("block lacks %q:\n%s", want, b)
		}
	}
	// The guard comes before the rule serving existing files; the
	// artifact rules after it, so the owner's own files win.
	if g, f, a := strings.Index(b, "RewriteRule ^_site(/|$)"), strings.Index(b, "%{REQUEST_FILENAME} -f"), strings.Index(b, "RewriteRule ^$ _site/"); !(g < f && f < a) {
		t.Errorf("order: guard at %d, existing files at %d, artifacts at %d; want guard < files < artifacts", g, f, a)
	}
	h.Domain = ""
	if strings.Contains(h.Block(), "webfinger") {
		t.Error("a WebFinger rule without a domain")
	}
}

// A policy that cannot be written into a quoted Header value is left
// out rather than breaking the whole file.
func TestSiteBlockPolicies(t *testing.T) {
	t.Parallel()
	h := Htaccess{Script: "murlog.cgi", Base: "/blog/", PageCSP: "default-src 'self'", BaseCSP: "default-src 'none'"}
	b := h.SiteBlock()
	for _, want := range []string{
		`Header set Content-Security-Policy "default-src 'none'"`,
		`Header set Content-Security-Policy "default-src 'self'" env=MURLOG_PAGE`,
		`Header set Content-Security-Policy "` + AssetCSP + `" env=MURLOG_IMMUTABLE`,
		"RewriteBase /blog/_site/", `AddType "text/css; charset=utf-8" .css`, `AddType "application/activity+json; charset=utf-8" .as`,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("artifact folder rules lack %q:\n%s", want, b)
		}
	}
	for _, bad := range []string{`default-src "x"`, `a\b`, "a\nHeader set X y"} {
		h.PageCSP, h.BaseCSP = bad, bad
		if b := h.SiteBlock(); strings.Contains(b, bad) {
			t.Errorf("policy %q written into the rules", bad)
		}
	}
}

func TestEnsureSiteDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := Htaccess{Script: "murlog.cgi", Base: "/", ArtifactDir: filepath.Join(dir, SiteDir), BaseCSP: "default-src 'none'"}
	if wrote, err := EnsureSiteDir(dir, h); err != nil || !wrote {
		t.Fatalf("first EnsureSiteDir = %v, %v; want it to write", wrote, err)
	}
	st, err := os.Stat(filepath.Join(dir, SiteDir))
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o755 {
		t.Fatalf("%s: %v, %v; want a folder of mode 0755", SiteDir, st, err)
	}
	path := filepath.Join(dir, SiteDir, ".htaccess")
	got, _ := os.ReadFile(path)
	if string(got) != h.SiteBlock() {
		t.Errorf(".htaccess holds\n%s\nwant\n%s", got, h.SiteBlock())
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf(".htaccess mode %v; want 0644", st.Mode().Perm())
	}
	if wrote, err := EnsureSiteDir(dir, h); wrote || err != nil {
		t.Errorf("second EnsureSiteDir = %v, %v; want no write", wrote, err)
	}
	h.Base = "/blog/"
	if wrote, err := EnsureSiteDir(dir, h); !wrote || err != nil {
		t.Errorf("EnsureSiteDir after a change = %v, %v; want a write", wrote, err)
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), "RewriteBase /blog/_site/") {
		t.Errorf(".htaccess not rewritten:\n%s", got)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, SiteDir))
	if len(ents) != 1 {
		t.Errorf("%s holds %d entries; want only .htaccess (no temp files left)", SiteDir, len(ents))
	}
}
