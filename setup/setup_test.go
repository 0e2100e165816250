package setup

import (
	"strings"
	"testing"

	"github.com/murlog/murlog"
)

func TestValidateDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d  string
		ok bool
	}{
		{"example.com", true}, {"blog.example.co.jp", true}, {"127.0.0.1:8080", true}, {"localhost:8080", true},
		{"[::1]:8080", true}, {"xn--r8jz45g.jp", true},
		{"", false}, {"exa mple.com", false}, {"example.com:0", false}, {"example.com:99999", false},
		{"-bad.example", false}, {"https://example.com", false}, {"example.com/path", false},
	} {
		if err := ValidateDomain(tc.d); (err == nil) != tc.ok {
			t.Errorf("ValidateDomain(%q) = %v; want ok=%v", tc.d, err, tc.ok)
		}
	}
}

// TestValidateRefusesSpoofingNames covers issue 6 point 11 for the wizard:
// the username and display name get the same name check as the API.
func TestValidateRefusesSpoofingNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ user, display, field string }{
		{"alice", "\u202eecila", "display_name"},
		{"alice", "Al\u2066ice", "display_name"},
		{"alice", "bell\a", "display_name"},
		{"al\u202eice", "Alice", "username"},
		{"al\x00ice", "Alice", "username"},
		{"alice", "caf\xe9", "display_name"},
		{"alice", "\u3164", "display_name"},
		{"alice", "\u200d", "display_name"},
		{"alice", "Al\u00adice", "display_name"},
		{"alice", "\u2800", "display_name"},
	} {
		in := &Input{Domain: "example.com", Username: tc.user, DisplayName: tc.display,
			Password: "correct horse battery", PasswordConfirm: "correct horse battery"}
		errs := Validate(in)
		if len(errs) != 1 || murlog.AsError(errs[0]).Field != tc.field {
			t.Errorf("Validate(username %q, display name %q) = %v; want one error on %s", tc.user, tc.display, errs, tc.field)
		}
	}
}

func TestValidateSiteName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"", "", true}, {"  My site  ", "My site", true}, {strings.Repeat("字", 50), strings.Repeat("字", 50), true},
		{strings.Repeat("字", 51), "", false}, {"a\x00b", "", false}, {"caf\xe9", "", false},
		{"\u3164", "", false}, {"My\u200bsite", "", false}, {"\u00ad", "", false}, {"two\nlines", "", false},
		{"👨\u200d👩\u200d👧の日記", "👨\u200d👩\u200d👧の日記", true},
	} {
		in := &Input{Domain: "example.com", Username: "alice", Password: "correct horse battery",
			PasswordConfirm: "correct horse battery", SiteName: tc.name}
		errs := Validate(in)
		if tc.ok && (len(errs) != 0 || in.SiteName != tc.want) {
			t.Errorf("site name %q: %v, %q; want %q", tc.name, errs, in.SiteName, tc.want)
		}
		if !tc.ok && (len(errs) != 1 || murlog.AsError(errs[0]).Field != "site_name") {
			t.Errorf("site name %q: %v; want one error on site_name", tc.name, errs)
		}
	}
}
