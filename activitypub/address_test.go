package activitypub

import (
	"slices"
	"testing"

	"github.com/murlog/murlog"
)

func TestAddressing(t *testing.T) {
	t.Parallel()
	const f = "https://blog.example/@owner/followers"
	m := []string{"https://a.example/users/x", "https://b.example/users/y", "https://a.example/users/x"}
	xy := []string{"https://a.example/users/x", "https://b.example/users/y"}
	tests := []struct {
		v      murlog.Visibility
		to, cc []string
	}{
		{murlog.VisibilityPublic, []string{Public}, append([]string{f}, xy...)},
		{murlog.VisibilityUnlisted, []string{f}, append([]string{Public}, xy...)},
		{murlog.VisibilityFollowers, []string{f}, xy},
		{murlog.VisibilityDirect, xy, nil},
		{"bogus", xy, nil},
	}
	for _, tt := range tests {
		to, cc := Addressing(tt.v, f, m)
		if !slices.Equal(to, tt.to) || !slices.Equal(cc, tt.cc) {
			t.Errorf("Addressing(%s) = to %v cc %v; want to %v cc %v", tt.v, to, cc, tt.to, tt.cc)
		}
		// The inverse gives the visibility back (bogus is sent as direct).
		want := tt.v
		if !want.Valid() {
			want = murlog.VisibilityDirect
		}
		for _, fol := range []string{f, ""} {
			if got := VisibilityOf(&Object{To: to, Cc: cc}, fol); got != want {
				t.Errorf("VisibilityOf(Addressing(%s), followers %q) = %s; want %s", tt.v, fol, got, want)
			}
		}
	}
	if got := VisibilityOf(&Object{To: []string{"as:Public"}}, ""); got != murlog.VisibilityPublic {
		t.Errorf("VisibilityOf(to as:Public) = %s; want public", got)
	}
	if got := VisibilityOf(nil, ""); got != murlog.VisibilityDirect {
		t.Errorf("VisibilityOf(nil) = %s; want direct", got)
	}
}

func TestHostOfAndSameOrigin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"https://Mastodon.Example/users/a", "mastodon.example"},
		{"https://a.example:443/x", "a.example"},
		{"http://a.example:80/x", "a.example"},
		{"http://a.example:8080/x", "a.example:8080"},
		{"https://[::1]:8443/x", "[::1]:8443"},
		{"HTTPS://A.EXAMPLE", "a.example"},
		{"/users/a", ""},
		{"ftp://a.example/x", ""},
		{"javascript:alert(1)", ""},
		{"https://user@a.example/x", ""},
		{"as:Public", ""},
		{"", ""},
	} {
		if got := HostOf(tt.in); got != tt.want {
			t.Errorf("HostOf(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"https://a.example/users/x", "https://a.example/notes/1", true},
		{"https://a.example/x", "https://A.example:443/y", true},
		{"https://a.example/x", "http://a.example/x", false},
		{"https://a.example/x", "https://a.example:8443/x", false},
		{"https://a.example/x", "https://evil.a.example/x", false},
		{"", "", false},
	} {
		if got := SameOrigin(tt.a, tt.b); got != tt.want {
			t.Errorf("SameOrigin(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
