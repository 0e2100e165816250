package httpd

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murlog/murlog"
)

func TestCheckOrigin(t *testing.T) {
	t.Parallel()
	site := murlog.Site{Scheme: "https", Domain: "blog.example"}
	for _, tc := range []struct {
		name, origin, referer string
		site                  murlog.Site
		ok                    bool
	}{
		{"neither header (scripts, curl)", "", "", site, true},
		{"same origin", "https://blog.example", "", site, true},
		{"same origin, explicit default port, upper case", "HTTPS://Blog.Example:443", "", site, true},
		{"another site", "https://evil.example", "", site, false},
		{"sibling subdomain", "https://evil.blog.example", "", site, false},
		{"other scheme", "http://blog.example", "", site, false},
		{"other port", "https://blog.example:8443", "", site, false},
		{"null origin", "null", "", site, false},
		{"garbage", "blog.example", "", site, false},
		{"origin wins over a same-site referer", "https://evil.example", "https://blog.example/my/", site, false},
		{"same-site referer without origin", "", "https://blog.example/my/posts?x=1", site, true},
		{"foreign referer without origin", "", "https://evil.example/blog.example", site, false},
		{"referer with userinfo trick", "", "https://blog.example@evil.example/", site, false},
		{"site with a port", "http://127.0.0.1:8080", "", murlog.Site{Scheme: "http", Domain: "127.0.0.1:8080"}, true},
		{"site with a port, origin without", "http://127.0.0.1", "", murlog.Site{Scheme: "http", Domain: "127.0.0.1:8080"}, false},
		{"IPv6 site", "http://[::1]:8080", "", murlog.Site{Scheme: "http", Domain: "[::1]:8080"}, true},
		{"site not known yet (before setup)", "https://evil.example", "", murlog.Site{Scheme: "https"}, true},
	} {
		r := httptest.NewRequest("POST", "/api/mur/v1/rpc", nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if tc.referer != "" {
			r.Header.Set("Referer", tc.referer)
		}
		err := CheckOrigin(r, tc.site)
		if (err == nil) != tc.ok {
			t.Errorf("%s: CheckOrigin(Origin %q, Referer %q) = %v; want ok=%v", tc.name, tc.origin, tc.referer, err, tc.ok)
		}
		if err != nil && (murlog.ErrorCode(err) != murlog.EForbidden || !strings.Contains(err.Error(), tc.site.Base())) {
			t.Errorf("%s: error %v; want forbidden naming %s", tc.name, err, tc.site.Base())
		}
	}
}
