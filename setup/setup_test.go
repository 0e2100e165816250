package setup

import "testing"

func TestValidateDomain(t *testing.T) {
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
