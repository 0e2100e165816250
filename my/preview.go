package my

import (
	"fmt"
	"html"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/i18n"
)

// servePreview answers GET /my/preview/{theme}: the public site's newest
// post as that theme renders it (blog.Loader.PreviewPage), for the theme
// picker's iframe. Only the owner's browser session may see it: it is the
// owner's tool, and an API token has no business rendering pages. It is
// never stored (a preview of a theme not chosen must not reach a cache),
// and only this site's pages may frame it.
func (h *Handler) servePreview(w http.ResponseWriter, r *http.Request) {
	// The app frames every answer of this route, its error pages too.
	w.Header().Set("Content-Security-Policy", framedCSP)
	w.Header().Set("X-Frame-Options", "SAMEORIGIN")
	if c := murlog.CallerFrom(r.Context()); !c.Owner || c.Via != "session" {
		h.page(w, r, http.StatusUnauthorized, "my.login.title", "my.login.body", link(Prefix))
		return
	}
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	if h.o.Blog == nil {
		httpd.WriteError(w, r, h.o.Log, murlog.NotFound("theme"))
		return
	}
	p, err := h.o.Blog.PreviewPage(r.Context(), r.PathValue("theme"))
	if err != nil {
		httpd.WriteError(w, r, h.o.Log, err)
		return
	}
	body := blog.RenderPage(h.o.Blog.Themes, p)
	hd.Set("Content-Security-Policy", blog.PreviewCSP(p))
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(p.Status())
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// framedCSP is CSP for the preview route's own pages (401, 404), which
// the app's iframe shows.
var framedCSP = strings.Replace(CSP, "frame-ancestors 'none'", "frame-ancestors 'self'", 1)

// notBuilt is the page of an app route when web_dir has no index.html:
// murlog runs from a checkout where make web has not run, or from a
// release whose web/dist was not copied.
func (h *Handler) notBuilt(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusServiceUnavailable, "my.notbuilt.title", "my.notbuilt.body", code("make web"), code(h.o.WebDir))
}

// pageTmpl is parsed on first use: a CGI process starts for every
// request, and few of them show this page.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!doctype html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}} — murlog</title>
</head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Body}}</p>
</body>
</html>
`))
})

// page writes a small server-rendered page in the reader's language: no
// script, no style (the strict CSP would refuse inline ones anyway),
// never cached.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, status int, titleKey, bodyKey string, args ...template.HTML) {
	lang := i18n.Negotiate(r.Header.Get("Accept-Language"))
	hd := w.Header()
	hd.Add("Vary", "Accept-Language")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if err := pageTmpl().Execute(w, struct {
		Lang  i18n.Lang
		Title string
		Body  template.HTML
	}{lang, i18n.T(lang, titleKey), htmlf(lang, bodyKey, args...)}); err != nil {
		h.o.Log.Error("owner's app: page failed", "err", err)
	}
}

// htmlf formats a catalog message as HTML: the message's own text is
// escaped, the arguments are HTML already (code and link escape theirs).
func htmlf(lang i18n.Lang, key string, args ...template.HTML) template.HTML {
	a := make([]any, len(args))
	for i, x := range args {
		a[i] = x
	}
	return template.HTML(fmt.Sprintf(html.EscapeString(i18n.T(lang, key)), a...))
}

// code is s, escaped, as <code>.
func code(s string) template.HTML {
	return template.HTML("<code>" + template.HTMLEscapeString(s) + "</code>")
}

// link is a link to the local path p, showing p.
func link(p string) template.HTML {
	e := template.HTMLEscapeString(p)
	return template.HTML(`<a href="` + e + `">` + e + `</a>`)
}
