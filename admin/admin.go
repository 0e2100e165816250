// Package admin serves the server-rendered owner pages under /admin/: the
// two-step setup wizard and the password reset page. They work without
// JavaScript, speak English and Japanese (by Accept-Language), and every
// form carries a csrf_token hidden field matched against a cookie.
package admin

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/i18n"
	"github.com/murlog/murlog/my"
	"github.com/murlog/murlog/setup"
)

//go:embed templates/*.html
var templateFiles embed.FS

// State is what the pages need to know about the running app. It changes
// as setup progresses, so the app hands over a function returning it.
type State struct {
	Config   *config.Config // never nil; Exists is false before step 1
	Setup    *setup.Service // nil before step 1
	Auth     *auth.Service  // nil before step 1
	Complete bool           // setup_complete is set
	Cookies  httpd.Cookies
}

// Deps wire the pages to the app.
type Deps struct {
	Log   *slog.Logger
	State func() State
	// Configure validates step 1's values, writes murlog.ini and opens the
	// database. Field problems are murlog.EInvalid errors naming the field.
	Configure func(ctx context.Context, values map[string]string) error
	// Completed is called after step 2 committed, so the app can rewire
	// itself for a finished site.
	Completed func(ctx context.Context) error
	// SetupToken returns the token the wizard requires from requests that
	// do not come directly from this machine, "" for none (CGI, tests).
	// May be nil.
	SetupToken func() string
	// ResetCommand is the password-reset command as the owner types it
	// on the server ("murlog reset", "./murlog.cgi reset").
	ResetCommand string
}

// Handler serves /admin/.
type Handler struct {
	deps Deps
	mux  *http.ServeMux

	once  sync.Once
	pages map[string]*template.Template
	err   error
}

// New returns the /admin/ handler.
func New(d Deps) *Handler {
	h := &Handler{deps: d, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET "+httpd.SetupServerPath, h.serverForm)
	h.mux.HandleFunc("POST "+httpd.SetupServerPath, h.serverSubmit)
	h.mux.HandleFunc("GET "+httpd.SetupSitePath, h.siteForm)
	h.mux.HandleFunc("POST "+httpd.SetupSitePath, h.siteSubmit)
	// The owner's pages are the app at /my/ now; /admin/ stays for the
	// wizard and the reset page, which work before and without it.
	h.mux.HandleFunc("GET /admin", toApp)
	h.mux.HandleFunc("GET /admin/{$}", toApp)
	h.mux.HandleFunc("GET /admin/reset", h.resetForm)
	h.mux.HandleFunc("POST /admin/reset", h.resetSubmit)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.securityHeaders(w)
	h.mux.ServeHTTP(w, r)
}

func toApp(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, my.Prefix, http.StatusSeeOther)
}

// securityHeaders sets the headers every /admin/ page carries.
func (h *Handler) securityHeaders(w http.ResponseWriter) {
	// These pages hold passwords: never cache, never frame, no scripts.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

// Problem answers a page that explains a problem the owner must fix on
// the server: the title and body are i18n keys, the body formatted with
// args.
func (h *Handler) Problem(w http.ResponseWriter, r *http.Request, status int, titleKey, bodyKey string, args ...any) {
	h.securityHeaders(w)
	p := h.newPage(w, r, titleKey)
	p.Message = i18n.Tf(p.Lang, bodyKey, args...)
	h.render(w, r, status, "message", p)
}

// MaxForm bounds a form body; the largest legitimate one is well under it.
const MaxForm = 64 << 10

// page is the data every template gets.
type page struct {
	Lang        i18n.Lang
	Title       string
	CSRF        string
	Form        map[string]string
	Errors      []string
	FieldErrors map[string]string
	Message     string
	Handle      string
	Next        string
	// App is the owner's app the completion page opens.
	App string
	// ResetCommand is shown where the pages tell how to reset the password.
	ResetCommand string
	// SetupToken is put in the wizard's forms once the token was given.
	SetupToken string
}

func (h *Handler) templates() (map[string]*template.Template, error) {
	h.once.Do(func() {
		h.pages = map[string]*template.Template{}
		for _, name := range []string{"server", "site", "done", "reset", "message"} {
			t, err := template.New(name).Funcs(template.FuncMap{"t": func(string) string { return "" }}).
				ParseFS(templateFiles, "templates/layout.html", "templates/errors.html", "templates/"+name+".html")
			if err != nil {
				h.err = err
				return
			}
			h.pages[name] = t
		}
	})
	return h.pages, h.err
}

// render writes a page with status. The "t" function is bound to the
// request's language.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	pages, err := h.templates()
	if err != nil {
		httpd.WriteError(w, r, h.deps.Log, murlog.Internal(err))
		return
	}
	t, err := pages[name].Clone()
	if err != nil {
		httpd.WriteError(w, r, h.deps.Log, murlog.Internal(err))
		return
	}
	t.Funcs(template.FuncMap{"t": func(k string) string { return i18n.T(p.Lang, k) }})
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		httpd.WriteError(w, r, h.deps.Log, murlog.Internal(err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (h *Handler) newPage(w http.ResponseWriter, r *http.Request, titleKey string) *page {
	lang := i18n.Negotiate(r.Header.Get("Accept-Language"))
	w.Header().Add("Vary", "Accept-Language")
	cmd := h.deps.ResetCommand
	if cmd == "" {
		cmd = "murlog reset"
	}
	return &page{Lang: lang, Title: i18n.T(lang, titleKey), CSRF: h.deps.State().Cookies.EnsureCSRF(w, r),
		Form: map[string]string{}, FieldErrors: map[string]string{}, ResetCommand: cmd}
}

// parseForm reads a bounded urlencoded body and checks its CSRF token. On
// failure it has already answered.
func (h *Handler) parseForm(w http.ResponseWriter, r *http.Request, p *page, tmpl string) bool {
	r.Body = http.MaxBytesReader(w, r.Body, MaxForm)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		status := http.StatusBadRequest
		if errors.As(err, &tooBig) {
			status = http.StatusRequestEntityTooLarge
		}
		http.Error(w, "bad form: "+err.Error(), status)
		return false
	}
	if !httpd.CSRFMatches(r, r.PostForm.Get(httpd.CSRFField)) {
		p.Errors = []string{i18n.T(p.Lang, "error.csrf")}
		p.Form = formValues(r, "password", "password_confirm", "secret")
		h.render(w, r, http.StatusForbidden, tmpl, p)
		return false
	}
	return true
}

// formValues copies the posted fields for redisplay, leaving out secrets.
func formValues(r *http.Request, omit ...string) map[string]string {
	m := map[string]string{}
	for k, v := range r.PostForm {
		if k == httpd.CSRFField || k == setupTokenField || len(v) == 0 {
			continue
		}
		skip := false
		for _, o := range omit {
			skip = skip || k == o
		}
		if !skip {
			m[k] = v[0]
		}
	}
	return m
}

// defaultScheme guesses the scheme for step 1: https when the request came
// over TLS or from anywhere but this machine.
func defaultScheme(r *http.Request) string {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return "https"
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return "http"
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && a.IsLoopback() {
		return "http"
	}
	return "https"
}
