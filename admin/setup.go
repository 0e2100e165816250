package admin

import (
	"errors"
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/i18n"
	"github.com/murlog/murlog/my"
	"github.com/murlog/murlog/setup"
)

// doneCookie lets the browser that completed step 2 see the completion
// page once; everyone else asking for the wizard of a finished site is
// sent to the site.
const doneCookie = "murlog_setup_done"

// serverForm is step 1: where murlog keeps its files.
func (h *Handler) serverForm(w http.ResponseWriter, r *http.Request) {
	st := h.deps.State()
	if st.Complete {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if st.Config.Exists {
		http.Redirect(w, r, httpd.SetupSitePath, http.StatusSeeOther)
		return
	}
	p := h.newPage(w, r, "setup.title")
	if !h.setupAllowed(w, r, p) {
		return
	}
	p.Form = map[string]string{"data_dir": "./data", "media_path": "./media", "scheme": defaultScheme(r)}
	h.render(w, r, http.StatusOK, "server", p)
}

func (h *Handler) serverSubmit(w http.ResponseWriter, r *http.Request) {
	p := h.newPage(w, r, "setup.title")
	if st := h.deps.State(); st.Config.Exists {
		key := "setup.step1.already"
		if st.Complete {
			key = "setup.already"
		}
		p.Errors = []string{i18n.T(p.Lang, key)}
		h.render(w, r, http.StatusConflict, "message", p)
		return
	}
	if !h.parseForm(w, r, p, "server") || !h.setupAllowed(w, r, p) {
		return
	}
	values := map[string]string{}
	for _, k := range []string{"data_dir", "media_path", "web_dir", "scheme"} {
		values[k] = r.PostForm.Get(k)
	}
	if err := h.deps.Configure(r.Context(), values); err != nil {
		p.Form = values
		status := h.formError(p, err)
		if status == http.StatusConflict {
			p.Errors = []string{i18n.T(p.Lang, "setup.step1.already")}
		}
		h.render(w, r, status, "server", p)
		return
	}
	http.Redirect(w, r, httpd.SetupSitePath, http.StatusSeeOther)
}

// siteForm is step 2: domain, persona, site name and password.
func (h *Handler) siteForm(w http.ResponseWriter, r *http.Request) {
	st := h.deps.State()
	if !st.Config.Exists || st.Setup == nil {
		http.Redirect(w, r, httpd.SetupServerPath, http.StatusSeeOther)
		return
	}
	p := h.newPage(w, r, "setup.title")
	if st.Complete {
		if ck, err := r.Cookie(doneCookie); err == nil && ck.Value == "1" {
			http.SetCookie(w, &http.Cookie{Name: doneCookie, Path: httpd.SetupSitePath, MaxAge: -1, HttpOnly: true,
				SameSite: http.SameSiteStrictMode, Secure: st.Cookies.Secure})
			h.renderDone(w, r, p)
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !h.setupAllowed(w, r, p) {
		return
	}
	p.Form = map[string]string{"domain": r.Host}
	h.render(w, r, http.StatusOK, "site", p)
}

// renderDone is the completion page: it opens the owner's app (a link,
// and a refresh after a few seconds: the page allows no script), where
// the owner is logged in already when logIn succeeded.
func (h *Handler) renderDone(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = i18n.T(p.Lang, "setup.done.heading")
	p.Message = i18n.T(p.Lang, "setup.done.body")
	if ps, err := h.primaryHandle(r); err == nil {
		p.Handle = ps
	}
	p.App = my.Prefix
	p.Next = i18n.T(p.Lang, "setup.done.log_in")
	if ck, err := r.Cookie(httpd.SessionCookie); err == nil && ck.Value != "" {
		p.Next = i18n.T(p.Lang, "setup.done.logged_in")
	}
	h.render(w, r, http.StatusOK, "done", p)
}

// logIn starts the owner's first session with the password step 2 just
// set, as auth.login does (a session cookie, and a fresh CSRF token so
// the one the wizard's forms used is not the session's), so the
// completion page opens the app logged in. A failure only costs the
// owner one login: it is logged, and the app asks for the password.
func (h *Handler) logIn(w http.ResponseWriter, r *http.Request, st State, password string) {
	if st.Auth == nil {
		return
	}
	secret, sess, err := st.Auth.Login(r.Context(), auth.LoginInput{Password: password,
		ClientKey: httpd.ClientKey(httpd.ClientAddr(r, st.Config.TrustedProxy)), UserAgent: r.UserAgent()})
	if err != nil {
		h.deps.Log.Warn("setup: the owner could not be logged in; the app will ask for the password", "err", err)
		return
	}
	http.SetCookie(w, st.Cookies.Session(secret, sess.ExpiresAt))
	http.SetCookie(w, st.Cookies.CSRF())
}

func (h *Handler) primaryHandle(r *http.Request) (string, error) {
	st := h.deps.State()
	if st.Setup == nil {
		return "", murlog.NotFound("site")
	}
	return st.Setup.Handle(r.Context())
}

func (h *Handler) siteSubmit(w http.ResponseWriter, r *http.Request) {
	st := h.deps.State()
	if !st.Config.Exists || st.Setup == nil {
		http.Redirect(w, r, httpd.SetupServerPath, http.StatusSeeOther)
		return
	}
	p := h.newPage(w, r, "setup.title")
	if st.Complete {
		p.Errors = []string{i18n.T(p.Lang, "setup.already")}
		h.render(w, r, http.StatusConflict, "message", p)
		return
	}
	if !h.parseForm(w, r, p, "site") || !h.setupAllowed(w, r, p) {
		return
	}
	in := setup.Input{Domain: r.PostForm.Get("domain"), Username: r.PostForm.Get("username"),
		DisplayName: r.PostForm.Get("display_name"), Password: r.PostForm.Get("password"),
		PasswordConfirm: r.PostForm.Get("password_confirm"), SiteName: r.PostForm.Get("site_name"),
		// The site starts in the language the wizard was shown in.
		Language: string(p.Lang)}
	p.Form = formValues(r, "password", "password_confirm")
	if errs := setup.Validate(&in); len(errs) > 0 {
		for _, err := range errs {
			h.formError(p, err)
		}
		h.render(w, r, http.StatusBadRequest, "site", p)
		return
	}
	if _, err := st.Setup.Run(r.Context(), in); err != nil {
		status := h.formError(p, err)
		if err == setup.ErrDone {
			p.Errors = []string{i18n.T(p.Lang, "setup.already")}
			h.render(w, r, status, "message", p)
			return
		}
		h.render(w, r, status, "site", p)
		return
	}
	if err := h.deps.Completed(r.Context()); err != nil {
		h.deps.Log.Error("rewiring after setup failed", "err", err)
	}
	h.logIn(w, r, st, in.Password)
	http.SetCookie(w, &http.Cookie{Name: doneCookie, Value: "1", Path: httpd.SetupSitePath, MaxAge: 600, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: st.Cookies.Secure})
	http.Redirect(w, r, httpd.SetupSitePath, http.StatusSeeOther)
}

// DirError is a step-1 directory (or file) murlog cannot use. Reason is an
// i18n key ("dir.system") formatted with Args, so the page says what is
// wrong in the reader's language instead of splicing a raw OS error into
// Japanese text; the OS error, when there is one, goes to the log.
type DirError struct {
	Field  string
	Reason string
	Args   []any
	Err    error // the underlying OS error, for the log; may be nil
}

func (e *DirError) Error() string {
	s := e.Field + ": " + i18n.Tf(i18n.En, e.Reason, e.Args...)
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

// Unwrap makes a DirError an invalid-field error to the error vocabulary
// (status 400, the field named).
func (e *DirError) Unwrap() error {
	return murlog.Invalid(e.Field, "%s", i18n.Tf(i18n.En, e.Reason, e.Args...))
}

// formError puts err on the page, localised where the catalog has a
// message for the field, and returns the status to answer with.
func (h *Handler) formError(p *page, err error) int {
	e := murlog.AsError(err)
	if e.Code == murlog.EInternal {
		h.deps.Log.Error("admin form failed", "err", err)
	}
	var de *DirError
	if errors.As(err, &de) {
		if de.Err != nil {
			h.deps.Log.Warn("setup: directory refused", "field", de.Field, "reason", de.Reason, "err", de.Err)
		}
		p.FieldErrors[de.Field] = i18n.T(p.Lang, "error.dir") + " " + i18n.Tf(p.Lang, de.Reason, de.Args...)
		return http.StatusBadRequest
	}
	msg := murlog.ErrorMessage(err)
	if key := fieldMessage(e); key != "" {
		msg = i18n.T(p.Lang, key)
	}
	switch {
	case e.Code == murlog.EInvalid && isDirField(e.Field):
		p.FieldErrors[e.Field] = i18n.T(p.Lang, "error.dir") + " " + msg
	case e.Code == murlog.EInvalid && e.Field != "":
		p.FieldErrors[e.Field] = msg
	default:
		p.Errors = append(p.Errors, msg)
	}
	return httpd.Status(err)
}

func isDirField(f string) bool { return f == "data_dir" || f == "media_path" || f == "web_dir" }

// fieldMessage picks a catalog message for common validation failures, by
// the error's code, field and reason (never its text); "" leaves the
// error's own message.
func fieldMessage(e *murlog.Error) string {
	if e.Code != murlog.EInvalid {
		if e.Code == murlog.ERateLimited {
			return "error.rate_limited"
		}
		return ""
	}
	if e.Reason == murlog.ReasonRequired {
		return "error.required"
	}
	switch e.Field {
	case "domain":
		return "error.domain_format"
	case "username":
		return "error.username_format"
	case "password":
		switch e.Reason {
		case murlog.ReasonTooLong:
			return "error.password_long"
		case murlog.ReasonTooShort:
			return "error.password_short"
		}
	case "password_confirm":
		return "error.password_mismatch"
	case "secret":
		return "reset.secret_wrong"
	case "scheme":
		return "error.scheme"
	case "site_name":
		if e.Reason == murlog.ReasonTooLong {
			return "error.site_name_long"
		}
	}
	return ""
}
