// Package cgi holds what murlog needs to live as a CGI program under Apache
// on a shared host: the .htaccess block that protects its files and routes
// requests to it, and the fix-ups of the CGI environment.
package cgi

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Markers around the block murlog manages. Lines outside them belong to the
// owner and are kept as they are.
const (
	beginMarker = "# BEGIN murlog"
	endMarker   = "# END murlog"
)

// Htaccess describes the managed block.
type Htaccess struct {
	// Script is the entry point's file name, e.g. "murlog.cgi".
	Script string
	// Base is the URL path of the directory holding the entry point,
	// ending in "/", e.g. "/".
	Base string
	// DataDir is the data directory relative to the .htaccess directory
	// ("data"), or "" when it lies outside (then the web cannot reach it).
	DataDir string
	// ArtifactDir is the absolute path of the artifact folder (the entry
	// point's folder joined with SiteDir), or "" for no artifact rules
	// (before setup: nothing is rendered yet). A path CheckArtifactDir
	// refuses gets no rules either, and a comment saying why.
	ArtifactDir string
	// Domain is the site's domain (with a port, if any), for the
	// WebFinger rule; "" leaves WebFinger to murlog.
	Domain string
	// PageCSP is the Content-Security-Policy Apache sends with HTML
	// artifacts, BaseCSP the one with every other artifact but theme
	// assets (AssetCSP); "" or a value with a quote, a backslash or a line
	// break sends none.
	PageCSP, BaseCSP string
	// WorkerCSP is the policy of the reader's service worker (/sw.js).
	WorkerCSP string
}

// safeRel reports whether rel is a non-empty path of ASCII letters,
// digits and ._/- only, safe to write into a rewrite rule.
func safeRel(rel string) bool {
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-') {
			return false
		}
	}
	return rel != ""
}

// Block renders the managed block. It needs AllowOverride FileInfo (rewrite,
// env) and AuthConfig (Require); every module-specific part sits in
// <IfModule> so a missing module degrades instead of failing with a 500.
func (h Htaccess) Block() string {
	var b strings.Builder
	w := func(s string, args ...any) { fmt.Fprintf(&b, s+"\n", args...) }
	w(beginMarker)
	w("# Managed by murlog: rewritten when murlog runs as CGI. Put your own directives outside this block.")
	w("")
	w("# murlog's private files: settings, database, reset secret, locks.")
	w(`<IfModule mod_authz_core.c>`)
	w(`<FilesMatch "(\.ini|\.reset|\.lock|\.db|\.db-wal|\.db-shm|\.db-journal)$">`)
	w(`Require all denied`)
	w(`</FilesMatch>`)
	w("# Dotfiles (.htaccess, .env, .git/ …), whatever the server's own rules; /.well-known/ is murlog's.")
	w(`<FilesMatch "^\.(?!well-known$)">`)
	w(`Require all denied`)
	w(`</FilesMatch>`)
	w(`</IfModule>`)
	w("")
	w("# httpoxy: never let a client's Proxy header reach the program as HTTP_PROXY.")
	w(`<IfModule mod_headers.c>`)
	w(`RequestHeader unset Proxy`)
	w(`</IfModule>`)
	w("")
	w("# A Go CGI is still exiting when its response ends; without keep-alive Apache does not wait for it.")
	w("# One request per process: a Go runtime started with one P answers a page 0.7–0.8 ms sooner than one")
	w("# started with a P per core (setting it from inside the program costs a stop of the world instead).")
	w(`<IfModule mod_env.c>`)
	w(`<Files %q>`, h.Script)
	w(`SetEnv nokeepalive 1`)
	w(`SetEnv GOMAXPROCS 1`)
	w(`</Files>`)
	w(`</IfModule>`)
	w("")
	w(`<IfModule mod_rewrite.c>`)
	w(`RewriteEngine On`)
	w(`RewriteBase %s`, h.Base)
	if h.DataDir != "" && safeRel(h.DataDir) {
		w(`RewriteRule ^%s(/|$) - [F,L]`, regexp.QuoteMeta(h.DataDir))
	}
	w(`RewriteRule (\.ini|\.reset|\.lock|\.db|\.db-wal|\.db-shm|\.db-journal)$ - [F,L]`)
	w(`RewriteRule (^|/)\.(?!well-known(/|$)) - [F,L]`)
	w("# Apache hides Authorization from CGI programs; pass it for API tokens.")
	w(`RewriteCond %%{HTTP:Authorization} .`)
	w(`RewriteRule .* - [E=HTTP_AUTHORIZATION:%%{HTTP:Authorization}]`)
	h.artifactGuard(w)
	w("# Existing files (built assets, media, pre-rendered pages) are served by Apache directly.")
	w(`RewriteCond %%{REQUEST_FILENAME} -f`)
	w(`RewriteRule ^ - [END]`)
	h.artifactBlock(w)
	w(`RewriteRule ^ %s [END]`, h.Script)
	w(`</IfModule>`)
	w(endMarker)
	return b.String()
}

// Ensure makes dir/.htaccess contain the current block, keeping the owner's
// lines. It writes only when something changed (so a CGI request normally
// pays one small read) and reports whether it wrote.
func Ensure(dir string, h Htaccess) (bool, error) {
	path := filepath.Join(dir, ".htaccess")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	next := merge(old, h.Block())
	if bytes.Equal(old, next) {
		return false, nil
	}
	return true, writeAtomic(dir, path, next)
}

// HasBlock reports whether dir/.htaccess holds a murlog block (of any
// version): then the site is routed and protected even when the block
// cannot be brought up to date.
func HasBlock(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ".htaccess"))
	return err == nil && bytes.Contains(b, []byte(beginMarker)) && bytes.Contains(b, []byte(endMarker))
}

// merge replaces the managed block in old, or appends it. Appending (not
// prepending) lets the owner's own rewrite rules run before murlog's
// catch-all; the protective rules do not depend on order.
func merge(old []byte, block string) []byte {
	s := string(old)
	i := strings.Index(s, beginMarker)
	j := strings.Index(s, endMarker)
	if i >= 0 && j > i {
		end := j + len(endMarker)
		if end < len(s) && s[end] == '\n' {
			end++
		}
		return []byte(s[:i] + block + s[end:])
	}
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	if s != "" {
		s += "\n"
	}
	return []byte(s + block)
}

// DataDirRel returns dataDir relative to dir when it lies inside it, else "".
func DataDirRel(dir, dataDir string) string {
	rel, err := filepath.Rel(dir, dataDir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}
