package e2e

import (
	"bufio"
	"net/http"
	stdcgi "net/http/cgi"
	"os"
	"strings"
	"testing"

	"github.com/murlog/murlog/cgi"
	"github.com/murlog/murlog/internal/apachetest"
)

// The owner's own .htaccess lines survive murlog, murlog's block is added
// exactly once however many requests run, and existing files are served by
// Apache itself.
func TestOwnerHtaccessKeptAndStaticFilesServedByApache(t *testing.T) {
	const own = "# my own rule\n<IfModule mod_headers.c>\nHeader set X-Owner yes\n</IfModule>\n"
	const hello = "hello, static world\n"
	s := apachetest.Start(t, apachetest.Options{Files: map[string]string{".htaccess": own, "hello.txt": hello}})
	html := map[string]string{"Accept": "text/html"}

	for _, path := range []string{"/murlog.cgi", "/admin/setup/server", "/admin/setup/server", "/murlog.cgi/admin/setup/server", "/no/such/page"} {
		resp, body := get(t, s.URL, path, html)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET %s: status %d; want 200 or 303\n%s", path, resp.StatusCode, body)
		}
	}
	ht := readFile(t, s.Path(".htaccess"))
	if !strings.HasPrefix(ht, own) {
		t.Errorf(".htaccess does not start with the owner's lines:\n%s", ht)
	}
	for _, line := range []string{"# my own rule", "Header set X-Owner yes", "# BEGIN murlog", "# END murlog", "RewriteEngine On"} {
		if n := strings.Count(ht, line); n != 1 {
			t.Errorf(".htaccess holds %q %d times; want 1\n%s", line, n, ht)
		}
	}

	// The owner's directive still works on murlog's own answers.
	resp, _ := get(t, s.URL, "/admin/setup/server", html)
	if got := resp.Header.Get("X-Owner"); got != "yes" {
		t.Errorf("murlog answer: X-Owner %q; want %q (the owner's Header directive)", got, "yes")
	}

	requests := strings.Count(s.ErrorLog(), `"msg":"request"`)
	resp, body := get(t, s.URL, "/hello.txt", nil)
	if resp.StatusCode != http.StatusOK || body != hello {
		t.Fatalf("GET /hello.txt: status %d, body %q; want 200, %q", resp.StatusCode, body, hello)
	}
	etag := resp.Header.Get("ETag")
	for _, h := range []struct{ name, got, want string }{
		{"ETag", etag, "set by Apache"},
		{"Last-Modified", resp.Header.Get("Last-Modified"), "set by Apache"},
		{"X-Owner", resp.Header.Get("X-Owner"), "yes"},
		{"Content-Type", resp.Header.Get("Content-Type"), "text/plain"},
	} {
		if h.got == "" || (h.want != "set by Apache" && !strings.HasPrefix(h.got, h.want)) {
			t.Errorf("GET /hello.txt: %s %q; want %s", h.name, h.got, h.want)
		}
	}
	if resp.Header.Get("Cache-Control") == "no-store" {
		t.Errorf("GET /hello.txt: Cache-Control no-store; want Apache's answer, not murlog's")
	}
	resp, _ = get(t, s.URL, "/hello.txt", map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("GET /hello.txt with If-None-Match: status %d; want 304", resp.StatusCode)
	}
	if n := strings.Count(s.ErrorLog(), `"msg":"request"`); n != requests {
		t.Errorf("murlog logged %d requests while serving hello.txt; want 0 (Apache serves existing files)", n-requests)
	}
}

// envDump is a CGI program that prints its environment, installed in
// murlog's place to see exactly what Apache hands murlog.
const envDump = "#!/bin/sh\nprintf 'Status: 200 OK\\r\\nContent-Type: text/plain\\r\\n\\r\\n'\nenv\n"

// A client's Proxy header must never reach murlog as HTTP_PROXY (httpoxy),
// while Authorization must. murlog itself has no way to echo its
// environment, so a program printing its environment stands in for
// murlog.cgi behind the very block murlog writes; the environment it saw
// is then fed through cgi.FixEnv and net/http/cgi, as murlog reads it.
func TestProxyHeaderNeverReachesCGI(t *testing.T) {
	withBlock := apachetest.Start(t, apachetest.Options{NoMurlog: true, Files: map[string]string{apachetest.Script: envDump}})
	if _, err := cgi.Ensure(withBlock.DocRoot, cgi.Htaccess{Script: apachetest.Script, Base: "/", DataDir: "data"}); err != nil {
		t.Fatal(err)
	}
	withBlock.Chown(t, withBlock.Path(".htaccess"))
	// Without any .htaccess: what Apache itself does with the header.
	bare := apachetest.Start(t, apachetest.Options{NoMurlog: true, Files: map[string]string{apachetest.Script: envDump}})

	for _, tc := range []struct {
		name, base, path string
		wantAuth         bool // the bare setup does not pass Authorization
	}{
		{"murlog block, rewritten path", withBlock.URL, "/api/mur/v1/rpc", true},
		{"murlog block, script in URL", withBlock.URL, "/murlog.cgi/api/mur/v1/rpc", true},
		{"no .htaccess, script in URL", bare.URL, "/murlog.cgi/api/mur/v1/rpc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, tc.base, tc.path, map[string]string{
				"Proxy": "http://evil.example", "X-Probe": "yes", "Authorization": "Bearer mlg_probe"})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: status %d; want 200\n%s", tc.path, resp.StatusCode, body)
			}
			env := parseEnv(body)
			if got := env["HTTP_X_PROBE"]; got != "yes" {
				t.Fatalf("HTTP_X_PROBE %q; want %q: the dump does not show request headers\n%s", got, "yes", body)
			}
			if v, ok := env["HTTP_PROXY"]; ok {
				t.Errorf("HTTP_PROXY=%q reached the CGI program; want it absent", v)
			}
			// The block starts murlog's Go runtime with one P (cgi.Htaccess).
			if got, want := env["GOMAXPROCS"], map[bool]string{true: "1", false: ""}[tc.wantAuth]; got != want {
				t.Errorf("GOMAXPROCS=%q in the CGI environment; want %q", got, want)
			}
			if strings.Contains(body, "evil.example") {
				t.Errorf("the Proxy header's value reached the CGI environment:\n%s", body)
			}
			if !tc.wantAuth {
				return
			}

			t.Logf("authorization as passed: %v", authVars(env))
			// Read the request as murlog does, from exactly this environment.
			clearEnv(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			cgi.FixEnv()
			r, err := stdcgi.Request()
			if err != nil {
				t.Fatalf("net/http/cgi.Request: %v", err)
			}
			if got := r.Header.Get("Authorization"); got != "Bearer mlg_probe" {
				t.Errorf("murlog would see Authorization %q; want %q (env: %v)", got, "Bearer mlg_probe", authVars(env))
			}
			if got := r.Header.Get("Proxy"); got != "" {
				t.Errorf("murlog would see a Proxy header %q; want none", got)
			}
		})
	}
}

// cgi.FixEnv on its own: the last line of defence if a server passed
// HTTP_PROXY on, and the restoring of a redirected Authorization.
func TestFixEnv(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		wantAuth string
	}{
		{"proxy dropped", map[string]string{"HTTP_PROXY": "http://evil.example"}, ""},
		{"auth after one redirect", map[string]string{"HTTP_PROXY": "http://evil.example", "REDIRECT_HTTP_AUTHORIZATION": "Bearer one"}, "Bearer one"},
		{"auth after two redirects", map[string]string{"REDIRECT_REDIRECT_HTTP_AUTHORIZATION": "Bearer two"}, "Bearer two"},
		{"direct auth wins", map[string]string{"HTTP_AUTHORIZATION": "Bearer direct", "REDIRECT_HTTP_AUTHORIZATION": "Bearer other"}, "Bearer direct"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			t.Setenv("REQUEST_METHOD", "GET")
			t.Setenv("SERVER_PROTOCOL", "HTTP/1.1")
			t.Setenv("REQUEST_URI", "/api/mur/v1/rpc")
			t.Setenv("HTTP_HOST", "example.com")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if _, set := tc.env["HTTP_PROXY"]; set {
				// Control: without FixEnv, net/http/cgi does turn it into a header.
				if r, err := stdcgi.Request(); err != nil || r.Header.Get("Proxy") == "" {
					t.Fatalf("control: Proxy header %q (err %v); want net/http/cgi to expose HTTP_PROXY", r.Header.Get("Proxy"), err)
				}
			}
			cgi.FixEnv()
			if v, ok := os.LookupEnv("HTTP_PROXY"); ok {
				t.Errorf("HTTP_PROXY=%q after FixEnv; want it unset", v)
			}
			r, err := stdcgi.Request()
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Header.Get("Proxy"); got != "" {
				t.Errorf("Proxy header %q; want none", got)
			}
			if got := r.Header.Get("Authorization"); got != tc.wantAuth {
				t.Errorf("Authorization %q; want %q", got, tc.wantAuth)
			}
		})
	}
}

// clearEnv unsets, for the test, every variable a CGI request could set.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "HTTP_") || strings.HasPrefix(k, "REDIRECT_") || strings.HasPrefix(k, "REQUEST_") ||
			strings.HasPrefix(k, "SERVER_") || strings.HasPrefix(k, "SCRIPT_") || strings.HasPrefix(k, "CONTENT_") ||
			k == "GATEWAY_INTERFACE" || k == "PATH_INFO" || k == "QUERY_STRING" || k == "REMOTE_ADDR" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

func parseEnv(body string) map[string]string {
	env := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env
}

func authVars(env map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range env {
		if strings.Contains(k, "AUTHORIZATION") {
			m[k] = v
		}
	}
	return m
}
