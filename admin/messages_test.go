package admin

import (
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/auth"
	"github.com/murlog/murlog/i18n"
	"github.com/murlog/murlog/persona"
	"github.com/murlog/murlog/setup"
	"github.com/murlog/murlog/siteconfig"
)

// TestSetupMessages: each message the setup and reset pages word in the
// reader's language is picked by the error's code, field and reason, as
// the services produce them — never by the error's text.
func TestSetupMessages(t *testing.T) {
	t.Parallel()
	mismatch := func() error {
		for _, err := range setup.Validate(&setup.Input{Domain: "blog.example", Username: "alice",
			Password: "long enough pw", PasswordConfirm: "other pw"}) {
			return err
		}
		return nil
	}
	_, siteName := siteconfig.CheckText("site_name", strings.Repeat("名", siteconfig.MaxShort+1), siteconfig.MaxShort)
	for _, tc := range []struct {
		name string
		err  error
		want string // catalog key; "" for the error's own message
	}{
		{"empty domain", setup.ValidateDomain(""), "error.required"},
		{"empty username", persona.ValidateUsername(""), "error.required"},
		{"empty data_dir", murlog.Required("data_dir"), "error.required"},
		{"bad domain", setup.ValidateDomain("not a domain"), "error.domain_format"},
		{"bad username", persona.ValidateUsername("al ice"), "error.username_format"},
		{"short password", auth.ValidatePassword("password", "short"), "error.password_short"},
		{"long password", auth.ValidatePassword("password", strings.Repeat("x", auth.MaxPasswordLen+1)), "error.password_long"},
		{"passwords differ", mismatch(), "error.password_mismatch"},
		{"wrong secret", murlog.Invalid("secret", "does not match the reset file"), "reset.secret_wrong"},
		{"bad scheme", murlog.Invalid("scheme", "must be https or http"), "error.scheme"},
		{"long site name", siteName, "error.site_name_long"},
		{"rate limited", murlog.Errorf(murlog.ERateLimited, "too many attempts"), "error.rate_limited"},
		// The text decides nothing: these read like the ones above but
		// carry no reason, and keep their own message.
		{"text 'is required'", murlog.Invalid("display_name", "is required"), ""},
		{"text 'must be at most'", murlog.Invalid("password", "must be at most 3 characters"), ""},
		{"password not UTF-8", auth.ValidatePassword("password", "abc\xffdefgh"), ""},
		{"site name with a control character", func() error { _, err := siteconfig.CheckText("site_name", "a\x01b", 50); return err }(), ""},
	} {
		if tc.err == nil {
			t.Errorf("%s: the producer returned no error", tc.name)
			continue
		}
		got := fieldMessage(murlog.AsError(tc.err))
		if got != tc.want {
			t.Errorf("%s (%v): message %q; want %q", tc.name, tc.err, got, tc.want)
		}
		if got != "" && i18n.T(i18n.En, got) == got {
			t.Errorf("%s: %q is not in the catalog", tc.name, got)
		}
	}
}
