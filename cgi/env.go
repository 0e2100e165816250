package cgi

import (
	"io"
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

// StripScript adapts murlog's handler to a CGI request:
//
//   - A request that named the script itself (/murlog.cgi/admin/setup) is
//     made to look like the rewritten one (/admin/setup): net/http/cgi
//     builds the URL from REQUEST_URI, the public URL, and murlog routes on
//     paths it owns.
//   - After the handler, what it left unread of the request body is read
//     and discarded (up to 16 MiB), so the program never exits with
//     unread input. mod_cgid hands the body over a Unix socket; closing it
//     with unread data resets the connection, and Apache then drops the
//     response's end or the whole response (AH00574 in the error log;
//     clients see a truncated body or an empty reply). Every answer that
//     does not need the body (409, 415, 503 before setup, 404) would be hit.
func StripScript(scriptName string, next http.Handler) http.Handler {
	if scriptName == "" {
		return drainBody(next)
	}
	return drainBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
}

// maxDrain bounds how much unread request body StripScript swallows. A
// larger leftover is abandoned (its response is then likely lost), so a
// client cannot keep the process reading forever.
const maxDrain = 16 << 20

func drainBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if r.Body != nil && r.Body != http.NoBody {
			io.Copy(io.Discard, io.LimitReader(r.Body, maxDrain))
		}
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
