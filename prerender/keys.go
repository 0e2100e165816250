// Package prerender turns the public site into artifacts (issue 16): every
// public read that depends on no one's identity — pages, ActivityPub
// documents, WebFinger, NodeInfo, feeds, the sitemap, the pointers that
// hydration reads, theme assets — is rendered once, when the truth
// changed, into the artifact store, and readers are answered from there:
// by Apache through the .htaccess rules under CGI (package cgi), by the
// resident server through Serve. The database is the ledger; a reader
// never needs it.
//
// A document is rendered by the app's own handler on a synthesized GET,
// so an artifact is byte for byte what the dynamic route answers; only
// 200 answers become artifacts. Writes mark what they changed (the
// triggers of migration 016 mark scopes such as "post/ID" in the write's
// transaction); the artifacts.rebuild job expands the scopes into keys
// and renders them again (rebuild.go).
package prerender

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/activitypub"
	"github.com/murlog/murlog/artifact"
)

// Doc is what a key renders from: the request the dynamic route answers.
type Doc struct {
	Path   string
	Query  string // raw query, "" for none
	Accept string
}

// The Accept headers renders send: a browser's, and an ActivityPub
// server's (Mastodon's).
const (
	acceptHTML = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
	acceptAP   = "application/activity+json, application/ld+json; profile=\"https://www.w3.org/ns/activitystreams\""
	acceptJSON = "application/json"
)

// Variants of the list pages, by query string: the exact strings the
// blog's own links carry (url.Values.Encode orders the keys), as the CGI
// rules match them too.
var listVariants = []struct{ query, suffix string }{
	{"", ""},
	{"mode=plain", "~plain"},
	{"order=oldest", "~oldest"},
	{"mode=plain&order=oldest", "~plain~oldest"},
}

// apCollections are a persona's ActivityPub documents beside the actor.
var apCollections = []string{"outbox", "followers", "following", "featured"}

// reservedSegs are the names under /@name that are not posts.
var reservedSegs = map[string]bool{"feed.rss": true, "feed.atom": true, "search": true, "inbox": true,
	"outbox": true, "followers": true, "following": true, "featured": true}

// The pointers' limits: recent-post lists of 1 to 40 posts.
const maxPointerLimit = 40

var digits = regexp.MustCompile(`^[1-9][0-9]{0,2}$`)

// KeyOf maps a request onto the artifact that answers it, and reports
// false for a request no artifact answers: another method, a query the
// artifacts do not cover (search, cursor pages, a signed fetch's
// variations), a path that is not a public document. domain is the site's
// (WebFinger answers only its own accounts).
func KeyOf(r *http.Request, domain string) (artifact.Key, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return artifact.Key{}, false
	}
	if r.Header.Get("Signature") != "" || r.Header.Get("Signature-Input") != "" {
		// A signed fetch may be answered differently (authorized fetch,
		// a blocked domain): the dynamic route decides.
		return artifact.Key{}, false
	}
	s, ok := keyString(r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), domain)
	if !ok || isVariant(s) {
		return artifact.Key{}, false
	}
	k, err := artifact.ParseKey(s)
	return k, err == nil
}

func keyString(p, q, accept, domain string) (string, bool) {
	switch {
	case p == "/":
		return listKey("html/index", q)
	case p == "/sitemap.xml" && q == "":
		return "misc/sitemap.xml", true
	case p == "/robots.txt" && q == "":
		return "misc/robots.txt", true
	case p == "/sw.js" && q == "":
		return "misc/sw.js", true
	case p == "/.well-known/nodeinfo" && q == "":
		return "misc/nodeinfo.json", true
	case (p == "/nodeinfo/2.0" || p == "/nodeinfo/2.1") && q == "":
		return "misc/nodeinfo-" + p[len("/nodeinfo/"):] + ".json", true
	case p == "/.well-known/webfinger":
		return webfingerKey(q, domain)
	case p == "/api/pub/runtime" && q == "":
		return "api/runtime.json", true
	case strings.HasPrefix(p, "/api/pub/personas/"):
		return pointerKey(p[len("/api/pub/personas/"):], q)
	case strings.HasPrefix(p, "/themes/") && q == "":
		rest := p[len("/themes/"):]
		if strings.Count(rest, "/") != 1 {
			return "", false
		}
		return "themes/" + rest, true
	case strings.HasPrefix(p, "/tags/"):
		tag, rest, _ := strings.Cut(p[len("/tags/"):], "/")
		switch {
		case tag == "":
			return "", false
		case rest == "":
			return listKey("html/tags/"+tag+"/index", q)
		case (rest == "feed.rss" || rest == "feed.atom") && q == "":
			return "feeds/tags/" + tag + "/" + rest, true
		}
		return "", false
	case strings.HasPrefix(p, "/@") && len(p) > 2:
		return personaKey(p[2:], q, accept)
	}
	return "", false
}

// listKey is a list page's key: its variant by the query, or the page
// after a cursor (newest first, in either mode: cursorKey); none for any
// other query.
func listKey(base, q string) (string, bool) {
	for _, v := range listVariants {
		if q == v.query {
			return base + v.suffix + ".html", true
		}
	}
	return cursorKey(base, q)
}

// Cursor pages — a list continuing after a post, the pages "older" leads
// to — are kept in a folder beside the list's first page, one file per
// cursor: html/@alice/index~after/<id>.html, and index~plain~after/ for
// the plain mode. Only the queries the blog's own links carry are mapped
// (url.Values.Encode orders the keys), only with a post id for a cursor;
// the blog says which of those pages may be kept (artifact.TransientHeader:
// the first blog.MaxCursorPages of each list), so no cursor anyone makes
// up leaves a file.
var cursorVariants = []struct{ query, folder string }{
	{"", "~after"},
	{"&mode=plain", "~plain~after"},
}

func cursorKey(base, q string) (string, bool) {
	id, rest, ok := strings.Cut(strings.TrimPrefix(q, "after="), "&")
	if !strings.HasPrefix(q, "after=") || !murlog.ValidID(id) {
		return "", false
	}
	if ok {
		rest = "&" + rest
	}
	for _, v := range cursorVariants {
		if rest == v.query {
			return base + v.folder + "/" + id + ".html", true
		}
	}
	return "", false
}

// cursorDoc is DocOf for a cursor page's key: in folder dir (the list's
// folder, then index~after or index~plain~after), file <id>.html.
func cursorDoc(dir, file string) (Doc, bool) {
	parent, folder := splitLast(dir)
	id, ok := strings.CutSuffix(file, ".html")
	if !ok || !murlog.ValidID(id) {
		return Doc{}, false
	}
	if parent != "" && !(strings.HasPrefix(parent, "tags/") && strings.Count(parent, "/") == 1) &&
		!(strings.HasPrefix(parent, "@") && !strings.Contains(parent, "/")) {
		return Doc{}, false
	}
	for _, v := range cursorVariants {
		if folder == "index"+v.folder {
			return Doc{Path: "/" + parent, Query: "after=" + id + v.query, Accept: acceptHTML}, true
		}
	}
	return Doc{}, false
}

func personaKey(rest, q, accept string) (string, bool) {
	name, seg, _ := strings.Cut(rest, "/")
	if name == "" || strings.Contains(seg, "/") {
		return "", false
	}
	if activitypub.Accepts(accept) {
		switch {
		case q != "":
			return "", false // collection pages and the like
		case seg == "":
			return "ap/@" + name + ".as", true
		case !reservedSegs[seg] || isCollection(seg):
			return "ap/@" + name + "/" + seg + ".as", true
		}
		return "", false
	}
	switch {
	case seg == "":
		return listKey("html/@"+name+"/index", q)
	case (seg == "feed.rss" || seg == "feed.atom") && q == "":
		return "feeds/@" + name + "/" + seg, true
	case !reservedSegs[seg] && q == "":
		return "html/@" + name + "/" + seg + "/index.html", true
	}
	return "", false
}

func isCollection(seg string) bool {
	for _, c := range apCollections {
		if seg == c {
			return true
		}
	}
	return false
}

func pointerKey(rest, q string) (string, bool) {
	name, what, _ := strings.Cut(rest, "/")
	if name == "" {
		return "", false
	}
	switch {
	case what == "config" && q == "":
		return "api/@" + name + "/config.json", true
	case what == "posts" && strings.HasPrefix(q, "limit="):
		n := q[len("limit="):]
		if !digits.MatchString(n) {
			return "", false
		}
		if v, _ := strconv.Atoi(n); v > maxPointerLimit {
			return "", false
		}
		return "api/@" + name + "/posts-" + n + ".json", true
	}
	return "", false
}

// webfingerKey answers only resource=acct:NAME@DOMAIN, the query every
// server sends (with ":" and "@" encoded or not).
func webfingerKey(q, domain string) (string, bool) {
	v, err := url.ParseQuery(q)
	if err != nil || len(v) != 1 || len(v["resource"]) != 1 {
		return "", false
	}
	acct, ok := strings.CutPrefix(v.Get("resource"), "acct:")
	if !ok {
		return "", false
	}
	name, host, ok := strings.Cut(acct, "@")
	if !ok || name == "" || !strings.EqualFold(host, domain) {
		return "", false
	}
	return "wf/" + name + ".jrd", true
}

// DocOf is the request key renders from, the inverse of KeyOf; false
// for a key that is no document (a .gz variant, a key of another layout).
func DocOf(k artifact.Key, domain string) (Doc, bool) {
	s := k.String()
	if isVariant(s) {
		return Doc{}, false
	}
	html := func(path, file string) (Doc, bool) {
		for _, v := range listVariants {
			if file == "index"+v.suffix+".html" {
				return Doc{Path: path, Query: v.query, Accept: acceptHTML}, true
			}
		}
		return Doc{}, false
	}
	top, rest, _ := strings.Cut(s, "/")
	switch top {
	case "html":
		dir, file := splitLast(rest)
		if d, ok := cursorDoc(dir, file); ok {
			return d, true
		}
		switch {
		case dir == "":
			return html("/", file)
		case strings.HasPrefix(dir, "tags/") && strings.Count(dir, "/") == 1:
			return html("/"+dir, file)
		case strings.HasPrefix(dir, "@") && !strings.Contains(dir, "/"):
			return html("/"+dir, file)
		case strings.HasPrefix(dir, "@") && strings.Count(dir, "/") == 1 && file == "index.html":
			return Doc{Path: "/" + dir, Accept: acceptHTML}, true
		}
	case "ap":
		name, ok := strings.CutSuffix(rest, ".as")
		if ok && strings.HasPrefix(name, "@") && strings.Count(name, "/") <= 1 {
			return Doc{Path: "/" + name, Accept: acceptAP}, true
		}
	case "feeds":
		if strings.HasSuffix(rest, "/feed.rss") || strings.HasSuffix(rest, "/feed.atom") {
			return Doc{Path: "/" + rest, Accept: "application/rss+xml, application/atom+xml"}, true
		}
	case "misc":
		switch rest {
		case "sitemap.xml", "robots.txt", "sw.js":
			return Doc{Path: "/" + rest, Accept: "*/*"}, true
		case "nodeinfo.json":
			return Doc{Path: "/.well-known/nodeinfo", Accept: acceptJSON}, true
		case "nodeinfo-2.0.json", "nodeinfo-2.1.json":
			return Doc{Path: "/nodeinfo/" + rest[len("nodeinfo-"):len(rest)-len(".json")], Accept: acceptJSON}, true
		}
	case "wf":
		name, ok := strings.CutSuffix(rest, ".jrd")
		if ok && !strings.Contains(name, "/") {
			return Doc{Path: "/.well-known/webfinger", Query: "resource=" + url.QueryEscape("acct:"+name+"@"+domain),
				Accept: "application/jrd+json"}, true
		}
	case "api":
		if rest == "runtime.json" {
			return Doc{Path: "/api/pub/runtime", Accept: acceptJSON}, true
		}
		dir, file := splitLast(rest)
		name, ok := strings.CutPrefix(dir, "@")
		if !ok || strings.Contains(name, "/") {
			break
		}
		if file == "config.json" {
			return Doc{Path: "/api/pub/personas/" + name + "/config", Accept: acceptJSON}, true
		}
		if n, ok := strings.CutPrefix(file, "posts-"); ok {
			if n, ok = strings.CutSuffix(n, ".json"); ok && digits.MatchString(n) {
				return Doc{Path: "/api/pub/personas/" + name + "/posts", Query: "limit=" + n, Accept: acceptJSON}, true
			}
		}
	case "themes":
		if strings.Count(rest, "/") == 1 {
			return Doc{Path: "/" + s, Accept: "*/*"}, true
		}
	}
	return Doc{}, false
}

// Request is the GET that renders d on the site.
func (d Doc) Request(site string) *http.Request {
	u := &url.URL{Scheme: "https", Host: site, Path: d.Path, RawQuery: d.Query}
	r, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	r.Header.Set("Accept", d.Accept)
	r.Host = site
	r.RemoteAddr = "127.0.0.1:0"
	return r
}

func splitLast(s string) (dir, file string) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+1:]
}

// Immutable reports whether k is content-addressed (a theme asset): its
// bytes never change under its name.
func Immutable(k artifact.Key) bool { return strings.HasPrefix(k.String(), "themes/") }

// Negotiated reports whether k's URL answers HTML or ActivityPub JSON by
// Accept (Vary: Accept).
func Negotiated(k artifact.Key) bool {
	s := k.String()
	return strings.HasPrefix(s, "ap/") || strings.HasPrefix(s, "html/@")
}

// Pointer reports whether k is pointer-shaped: small JSON that hydration
// reads on every view, which the micro-cache may keep a little longer.
func Pointer(k artifact.Key) bool { return strings.HasPrefix(k.String(), "api/") }
