package cgi

import (
	"net/http"
	"os"
	"path"
	"strings"
)

// FixEnv adjusts the CGI environment before the request is read:
//   - HTTP_PROXY is removed (httpoxy): it is a client's Proxy header, never
//     a proxy setting, and nothing in murlog may use it as one.
//   - Authorization passed through the .htaccess rewrite arrives as
//     REDIRECT_HTTP_AUTHORIZATION after Apache's internal redirect; it is
//     restored to HTTP_AUTHORIZATION, which net/http/cgi reads.
func FixEnv() {
	os.Unsetenv("HTTP_PROXY")
	if os.Getenv("HTTP_AUTHORIZATION") == "" {
		for _, k := range []string{"REDIRECT_HTTP_AUTHORIZATION", "REDIRECT_REDIRECT_HTTP_AUTHORIZATION"} {
			if v := os.Getenv(k); v != "" {
				os.Setenv("HTTP_AUTHORIZATION", v)
				break
			}
		}
	}
}

// StripScript makes a request that named the script itself
// (/murlog.cgi/admin/setup) look like the rewritten one (/admin/setup):
// net/http/cgi builds the URL from REQUEST_URI, the public URL, and murlog
// routes on paths it owns.
func StripScript(scriptName string, next http.Handler) http.Handler {
	if scriptName == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if rest, ok := strings.CutPrefix(p, scriptName); ok && (rest == "" || rest[0] == '/') {
			if rest == "" {
				rest = "/"
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = rest
			r2.URL.RawPath = ""
			next.ServeHTTP(w, r2)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// BaseOf returns the directory URL of a script name, ending in "/".
func BaseOf(scriptName string) string {
	d := path.Dir(scriptName)
	if !strings.HasSuffix(d, "/") {
		d += "/"
	}
	return d
}
