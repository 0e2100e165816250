package admin

import (
	"net/http"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/i18n"
)

// resetPath returns where the reset file for the current config lives.
func resetPath(st State) string { return st.Config.ResetPath() }

// resetForm asks for the secret from murlog.reset and a new password.
func (h *Handler) resetForm(w http.ResponseWriter, r *http.Request) {
	st := h.deps.State()
	if !st.Complete {
		http.Redirect(w, r, httpd.SetupSitePath, http.StatusSeeOther)
		return
	}
	p := h.newPage(w, r, "reset.title")
	h.render(w, r, http.StatusOK, "reset", p)
}

func (h *Handler) resetSubmit(w http.ResponseWriter, r *http.Request) {
	st := h.deps.State()
	if !st.Complete || st.Auth == nil {
		http.Redirect(w, r, httpd.SetupSitePath, http.StatusSeeOther)
		return
	}
	p := h.newPage(w, r, "reset.title")
	if !h.parseForm(w, r, p, "reset") {
		return
	}
	pw, confirm := r.PostForm.Get("password"), r.PostForm.Get("password_confirm")
	if pw != confirm {
		h.formError(p, murlog.Invalid("password_confirm", "does not match the password"))
		h.render(w, r, http.StatusBadRequest, "reset", p)
		return
	}
	client := httpd.ClientKey(httpd.ClientAddr(r, st.Config.TrustedProxy))
	// The reset file must belong to whoever owns murlog.ini: the user
	// `murlog reset` hands it to.
	err := st.Auth.ResetPassword(r.Context(), auth.ResetInput{Path: resetPath(st), OwnerRef: st.Config.Path, Secret: r.PostForm.Get("secret"),
		Password: pw, ClientKey: client})
	if err != nil {
		status := h.formError(p, err)
		if murlog.ErrorCode(err) == murlog.EForbidden {
			// The refusal's reason is English text from auth; a Japanese
			// page leads with its own message and keeps the reason as a
			// quoted detail rather than splicing it into Japanese prose.
			if p.Lang != i18n.En && len(p.Errors) > 0 {
				p.Errors[len(p.Errors)-1] = "(" + p.Errors[len(p.Errors)-1] + ")"
				p.Errors = append([]string{i18n.T(p.Lang, "reset.unavailable")}, p.Errors...)
			} else {
				p.Errors = append(p.Errors, i18n.T(p.Lang, "reset.unavailable"))
			}
		}
		httpd.SetRetryAfter(w, err)
		h.render(w, r, status, "reset", p)
		return
	}
	// Every session ended, including this browser's, and every token.
	http.SetCookie(w, st.Cookies.ClearSession())
	p.Message = i18n.T(p.Lang, "reset.done") + " " + i18n.T(p.Lang, "reset.tokens_revoked")
	h.render(w, r, http.StatusOK, "done", p)
}
