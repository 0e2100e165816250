package cgi

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/murlog/murlog/internal/contenttype"
)

// SiteDir is the artifact folder's name, beside the entry point and its
// .htaccess: under CGI the artifact store (artifact/fsstore) keeps the key
// K as the file <entry dir>/_site/K, and the managed block maps public
// URLs onto those files so Apache answers them without starting murlog.
const SiteDir = "_site"

// AssetCSP is the Content-Security-Policy of a theme asset, as
// theme.(*Set).ServeAsset sends it: an SVG opened on its own is a document
// of this origin, so no script.
const AssetCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// apAccept matches an Accept header that asks for ActivityPub: it names
// application/activity+json or application/ld+json, and text/html, if at
// all, only with a q-value below 1. Mastodon fetches with
// `application/activity+json, application/ld+json; profile="…",
// text/html;q=0.1`, so refusing any text/html would send every Mastodon
// fetch to murlog.cgi. asAccept matches any header naming those types.
// An HTML artifact is served only when asAccept does not match; a header
// naming both at full weight ("text/html, application/activity+json")
// goes to murlog.cgi, whose activitypub.Accepts weighs the q-values, so
// Apache never answers differently from murlog.
const (
	apAccept = `^(?!.*text/html(?!\s*;\s*q\s*=\s*0)).*application/(activity|ld)\+json`
	asAccept = `application/(activity|ld)\+json`
)

// seg matches one URL path segment that can name an artifact folder or
// file: no slash, and not starting with a dot (keys never do, and ".."
// must never reach a RewriteCond's file test).
const seg = `([^/.][^/]*)`

// CheckArtifactDir reports why the absolute folder path p cannot be
// written into a RewriteCond, or nil when it can. A RewriteCond's test
// string is expanded ($N, %N, %{VAR}) and split at spaces, and quoting
// rules differ between Apache versions, so a path with a space, a quote,
// "$", "%", a backslash or a control character is not written at all:
// the block then has no artifact rules and every request goes to
// murlog.cgi, which serves the same documents, slower.
func CheckArtifactDir(p string) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("artifact folder %q is not an absolute path", p)
	}
	for _, r := range p {
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`"'$%\`+"`", r) {
			return fmt.Errorf("artifact folder %q holds %q, which a RewriteCond cannot carry safely", p, r)
		}
	}
	return nil
}

// headerValue reports whether v can be written as a quoted Header value.
func headerValue(v string) bool {
	return v != "" && !strings.ContainsAny(v, "\"\\\r\n")
}

// artifactRule is one RewriteRule with its conditions.
type artifactRule struct {
	conds   []string
	pattern string
	target  string // a key, relative to SiteDir, with $N/%N references
}

// listVariants are the list pages' query strings and the file each one
// selects in the page's folder. Only these exact strings are mapped: any
// other query (a cursor, another order of the same parameters) goes to
// murlog.cgi.
var listVariants = []struct{ query, file string }{
	{"", "index.html"},
	{"mode=plain", "index~plain.html"},
	{"order=oldest", "index~oldest.html"},
	{"mode=plain&order=oldest", "index~plain~oldest.html"},
}

// cursorVariants are the list pages after a cursor that have artifacts
// (prerender's cursor keys): newest first, in either mode, with the
// query exactly as the blog's links write it.
var cursorVariants = []struct{ rest, folder string }{
	{"", "index~after"},
	{"&mode=plain", "index~plain~after"},
}

// postID matches a post id (murlog.ValidID: a lower-case UUID).
const postID = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

// artifactRules are the rules that map public URLs onto artifact keys,
// in the order they are tried. domain is the site's, "" for none (no
// WebFinger rule).
func artifactRules(domain string) []artifactRule {
	const (
		// Plain string comparisons where no capture is needed: every
		// regular expression in an .htaccess is compiled again on every
		// request, hit or not.
		noQuery   = `%{QUERY_STRING} =""`
		wantsAP   = `%{ENV:MURLOG_AP} =1` // set by the rules before these (artifactBlock)
		wantsHTML = `%{ENV:MURLOG_AS} !=1`
		feeds     = `(feed\.rss|feed\.atom)`
	)
	query := func(q string) string {
		if q == "" {
			return noQuery
		}
		return `%{QUERY_STRING} =` + q
	}
	var rs []artifactRule
	lists := func(pattern, folder string, conds ...string) {
		for _, v := range listVariants {
			rs = append(rs, artifactRule{append([]string{query(v.query)}, conds...), pattern, folder + v.file})
		}
		// The pages after a cursor (a post id), which the blog's own
		// "older" links name. The capture's condition comes last: %1 is
		// of the last regular expression matched before the -f test.
		for _, v := range cursorVariants {
			rs = append(rs, artifactRule{append(slices.Clone(conds), `%{QUERY_STRING} ^after=(`+postID+`)`+v.rest+`$`),
				pattern, folder + v.folder + "/%1.html"})
		}
	}
	lists(`^$`, "html/")
	rs = append(rs,
		artifactRule{[]string{noQuery, wantsAP}, `^@` + seg + `$`, "ap/@$1.as"},
		// The outbox, followers, following, featured and a note or article.
		artifactRule{[]string{noQuery, `$2 !^(feed\.rss|feed\.atom|search|inbox)$`, wantsAP}, `^@` + seg + `/` + seg + `$`, "ap/@$1/$2.as"},
		artifactRule{[]string{noQuery}, `^@` + seg + `/` + feeds + `$`, "feeds/@$1/$2"},
	)
	lists(`^@`+seg+`$`, "html/@$1/", wantsHTML)
	rs = append(rs,
		artifactRule{[]string{noQuery, `$2 !^(feed\.rss|feed\.atom|search|inbox|outbox|followers|following|featured)$`, wantsHTML},
			`^@` + seg + `/` + seg + `$`, "html/@$1/$2/index.html"},
		artifactRule{[]string{noQuery}, `^tags/` + seg + `/` + feeds + `$`, "feeds/tags/$1/$2"},
	)
	lists(`^tags/`+seg+`$`, "html/tags/$1/")
	rs = append(rs,
		artifactRule{[]string{noQuery}, `^sitemap\.xml$`, "misc/sitemap.xml"},
		artifactRule{[]string{noQuery}, `^robots\.txt$`, "misc/robots.txt"},
		artifactRule{[]string{noQuery}, `^sw\.js$`, "misc/sw.js"},
		artifactRule{[]string{noQuery}, `^\.well-known/nodeinfo$`, "misc/nodeinfo.json"},
		artifactRule{[]string{noQuery}, `^nodeinfo/(2\.[01])$`, "misc/nodeinfo-$1.json"},
	)
	if domain != "" {
		// acct:user@domain, with ":" and "@" (and a port's ":") sent
		// plain or percent-encoded in either case. %1 is the user.
		d := strings.ReplaceAll(regexp.QuoteMeta(domain), ":", `(?::|%3A)`)
		rs = append(rs, artifactRule{
			[]string{`%{QUERY_STRING} ^resource=acct(?::|%3A)([a-z0-9_]+)(?:@|%40)` + d + `$ [NC]`},
			`^\.well-known/webfinger$`, "wf/%1.jrd"})
	}
	rs = append(rs,
		artifactRule{[]string{`%{QUERY_STRING} ^limit=([0-9]{1,4})$`}, `^api/pub/personas/` + seg + `/posts$`, "api/@$1/posts-%1.json"},
		artifactRule{[]string{noQuery}, `^api/pub/personas/` + seg + `/config$`, "api/@$1/config.json"},
		artifactRule{[]string{noQuery}, `^api/pub/runtime$`, "api/runtime.json"},
		// A precompressed variant is chosen by the artifact folder's own
		// rules, never named in a URL.
		artifactRule{[]string{`$2 !\.(gz|br)$`}, `^themes/` + seg + `/` + seg + `$`, "themes/$1/$2"},
	)
	return rs
}

// artifactGuard writes the rule that refuses direct requests for the
// artifact folder, for when its own .htaccess (SiteBlock) is missing; it
// must come before the rule that serves existing files.
func (h Htaccess) artifactGuard(w func(string, ...any)) {
	if h.ArtifactDir == "" || CheckArtifactDir(h.ArtifactDir) != nil {
		return
	}
	w("# The artifact folder %s/ is reached only through the artifact rules below.", SiteDir)
	w(`RewriteCond %%{ENV:REDIRECT_STATUS} ^$`)
	w(`RewriteRule ^%s(/|$) - [R=404,L]`, regexp.QuoteMeta(SiteDir))
}

// artifactBlock writes the part of the managed block that maps public
// URLs onto the artifact folder, or a comment saying why it is left out.
func (h Htaccess) artifactBlock(w func(string, ...any)) {
	if h.ArtifactDir == "" {
		return
	}
	w("")
	if err := CheckArtifactDir(h.ArtifactDir); err != nil {
		w("# No artifact rules: %s. Every page is rendered by murlog.", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	dir := filepath.ToSlash(h.ArtifactDir)
	w("# Public reads with a pre-rendered artifact are answered by Apache from %s/ (GET and HEAD only);", SiteDir)
	w("# a miss falls through to murlog, which renders and stores it. Headers: %s/.htaccess.", SiteDir)
	rs := artifactRules(h.Domain)
	w(`RewriteCond %%{REQUEST_METHOD} !^(GET|HEAD)$`)
	w(`RewriteRule ^ - [S=%d]`, len(rs)+2)
	w("# What a /@name… request asks for, decided once: ActivityPub (MURLOG_AP), or HTML (no MURLOG_AS);")
	w("# a header naming both at full weight is left to murlog.")
	w(`RewriteCond %%{HTTP:Accept} %s [NC]`, asAccept)
	w(`RewriteRule ^@ - [E=MURLOG_AS:1]`)
	w(`RewriteCond %%{HTTP:Accept} %s [NC]`, apAccept)
	w(`RewriteRule ^@ - [E=MURLOG_AP:1]`)
	for _, r := range rs {
		for _, c := range r.conds {
			w("RewriteCond %s", c)
		}
		w("RewriteCond %s/%s -f", dir, r.target)
		w("RewriteRule %s %s/%s [L]", r.pattern, SiteDir, r.target)
	}
}

// SiteBlock returns the artifact folder's own .htaccess: the content type,
// encoding and headers of every artifact (matching what murlog's
// handlers send for the same URL), the choice of a precompressed ".br"
// or ".gz" variant, and the refusal of any request that did not come through the
// managed block's rules (direct requests, hidden names: fsstore's
// sidecars and temp files). It needs only AllowOverride FileInfo, and
// each module's part sits in <IfModule>: without mod_rewrite the block
// maps nothing here, without mod_headers the files lose only their
// extra headers.
func (h Htaccess) SiteBlock() string {
	var b strings.Builder
	w := func(s string, args ...any) { fmt.Fprintf(&b, s+"\n", args...) }
	w("# Managed by murlog: the artifact folder's rules, rewritten when murlog runs as CGI. Do not edit;")
	w("# put your own directives in the .htaccess beside murlog.cgi.")
	w("")
	w(`<IfModule mod_mime.c>`)
	w("# Types as murlog's handlers send them; a .br or .gz variant keeps its base type and is brotli-")
	w("# or gzip-encoded.")
	w(`RemoveType .gz .br`)
	w(`AddEncoding gzip .gz`)
	w(`AddEncoding br .br`)
	types := [][2]string{
		{".html", "text/html; charset=utf-8"}, {".as", "application/activity+json; charset=utf-8"},
		{".jrd", "application/jrd+json; charset=utf-8"}, {".rss", "application/rss+xml; charset=utf-8"},
		{".atom", "application/atom+xml; charset=utf-8"}, {".xml", "application/xml; charset=utf-8"},
		{".txt", "text/plain; charset=utf-8"}, {".json", "application/json"},
	}
	for _, ext := range contenttype.Extensions() {
		if ext != ".html" && ext != ".txt" && ext != ".json" {
			types = append(types, [2]string{ext, contenttype.Of(ext)})
		}
	}
	for _, t := range types {
		w(`AddType %q %s`, t[1], t[0])
	}
	w(`</IfModule>`)
	// This file is parsed on every hit: the headers below depend on flags
	// the rewrite rules set rather than on <Files> sections, each of which
	// costs a configuration of every module per request.
	w("# NodeInfo documents name their schema in the type.")
	for _, v := range []string{"2.0", "2.1"} {
		w(`<Files "nodeinfo-%s.json*">`, v)
		w(`ForceType 'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/%s#"'`, v)
		w(`</Files>`)
	}
	w("")
	w(`<IfModule mod_rewrite.c>`)
	w(`RewriteEngine On`)
	w(`RewriteBase %s%s/`, h.Base, SiteDir)
	w("# Only the rules of the .htaccess beside murlog.cgi lead here: a direct request, or a hidden")
	w("# name (the store's .meta-* sidecars, .tmp-* files, .turns and .owners locks), is not found.")
	w(`RewriteCond %%{ENV:REDIRECT_STATUS} ^$`)
	w(`RewriteRule ^ - [R=404,L]`)
	w(`RewriteRule (^|/)\. - [R=404,L]`)
	w("# Flags for the headers below, set again in every round so they survive internal redirects.")
	w(`RewriteRule ^(html|ap|feeds)/@ - [E=MURLOG_NEGOTIATED:1]`)
	w(`RewriteRule ^themes/ - [E=MURLOG_IMMUTABLE:1]`)
	w(`RewriteRule ^html/ - [E=MURLOG_PAGE:1]`)
	w(`RewriteRule ^(wf/|misc/nodeinfo) - [E=MURLOG_CORS:1]`)
	w(`RewriteRule ^misc/sw\.js - [E=MURLOG_WORKER:1]`)
	w("# A precompressed variant, brotli first, is never compressed again (mod_deflate, mod_brotli).")
	w(`RewriteRule \.(gz|br)$ - [E=no-gzip:1,E=no-brotli:1,END]`)
	w(`RewriteCond %%{HTTP:Accept-Encoding} br [NC]`)
	w(`RewriteCond %%{REQUEST_FILENAME}.br -f`)
	w(`RewriteRule ^(.+)$ $1.br [L]`)
	w(`RewriteCond %%{HTTP:Accept-Encoding} gzip [NC]`)
	w(`RewriteCond %%{REQUEST_FILENAME}.gz -f`)
	w(`RewriteRule ^(.+)$ $1.gz [L]`)
	w(`</IfModule>`)
	w("")
	w(`<IfModule mod_headers.c>`)
	w("# HTML and JSON revalidate every time (Apache answers 304 from its ETag); hashed theme assets never change.")
	w(`Header set Cache-Control "no-cache" env=!MURLOG_IMMUTABLE`)
	w(`Header set Cache-Control "public, max-age=31536000, immutable" env=MURLOG_IMMUTABLE`)
	w("# /@name… URLs answer HTML or ActivityPub by Accept.")
	w(`Header set Vary "Accept, Accept-Encoding" env=MURLOG_NEGOTIATED`)
	w(`Header set Vary "Accept-Encoding" env=!MURLOG_NEGOTIATED`)
	w(`Header set X-Content-Type-Options "nosniff"`)
	w(`Header set Referrer-Policy "strict-origin-when-cross-origin"`)
	// Later lines win: the base policy, then a page's, then an asset's.
	if headerValue(h.BaseCSP) {
		w(`Header set Content-Security-Policy %q`, h.BaseCSP)
	}
	if headerValue(h.PageCSP) {
		w("# A page's exact policy is also in its <meta http-equiv>; this one allows what any page may use.")
		w(`Header set Content-Security-Policy %q env=MURLOG_PAGE`, h.PageCSP)
	}
	w(`Header set Content-Security-Policy %q env=MURLOG_IMMUTABLE`, AssetCSP)
	if headerValue(h.WorkerCSP) {
		w("# The reader's service worker fetches under its own script's policy.")
		w(`Header set Content-Security-Policy %q env=MURLOG_WORKER`, h.WorkerCSP)
	}
	w("# WebFinger and NodeInfo are read by browsers of other sites too.")
	w(`Header set Access-Control-Allow-Origin "*" env=MURLOG_CORS`)
	w(`</IfModule>`)
	return b.String()
}

// EnsureSiteDir creates the artifact folder dir/SiteDir (mode 0755) when
// it is missing and makes its .htaccess hold h.SiteBlock(), written
// atomically (mode 0644) only when it differs. It reports whether it
// wrote. dir is the folder of the entry point, as for Ensure.
func EnsureSiteDir(dir string, h Htaccess) (bool, error) {
	site := filepath.Join(dir, SiteDir)
	if _, err := os.Stat(site); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(site, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return false, err
		}
		// Apache (often another user) must traverse it, whatever the umask.
		if err := os.Chmod(site, 0o755); err != nil {
			return false, err
		}
	} else if err != nil {
		return false, err
	}
	path := filepath.Join(site, ".htaccess")
	next := []byte(h.SiteBlock())
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if bytes.Equal(old, next) {
		return false, nil
	}
	return true, writeAtomic(site, path, next)
}

// writeAtomic writes b to path through a temporary file in dir renamed
// into place, mode 0644: Apache must read it; it holds nothing secret.
func writeAtomic(dir, path string, b []byte) error {
	tmp, err := os.CreateTemp(dir, ".htaccess-murlog-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
