package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
)

// A fresh document root holding only murlog.cgi: the first request writes
// the .htaccess block and sends the browser to step 1, which is then
// reachable at its own path through the block's rewrite.
func TestFirstRequestWritesHtaccessAndRedirects(t *testing.T) {
	t.Parallel()
	s := apachetest.Start(t, apachetest.Options{})
	if _, err := os.Stat(s.Path(".htaccess")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("before the first request: stat .htaccess: %v; want it absent", err)
	}
	html := map[string]string{"Accept": "text/html"}

	resp, _ := get(t, s.URL, "/murlog.cgi", html)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("GET /murlog.cgi: status %d; want %d", resp.StatusCode, http.StatusSeeOther)
	}
	if got := resp.Header.Get("Location"); got != "/admin/setup/server" {
		t.Errorf("GET /murlog.cgi: Location %q; want %q", got, "/admin/setup/server")
	}
	ht := readFile(t, s.Path(".htaccess"))
	for _, want := range []string{"# BEGIN murlog", "# END murlog", "RewriteRule ^ murlog.cgi [END]", "RewriteBase /"} {
		if n := strings.Count(ht, want); n != 1 {
			t.Errorf(".htaccess holds %q %d times; want 1\n%s", want, n, ht)
		}
	}
	if st, err := os.Stat(s.Path(".htaccess")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf(".htaccess mode: %v (err %v); want 0644 so Apache can read it", st.Mode().Perm(), err)
	}

	// Now the block is in place: the wizard answers at its own path, and
	// other paths reach murlog through the rewrite too.
	resp, body := get(t, s.URL, "/admin/setup/server", html)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin/setup/server: status %d; want 200\n%s", resp.StatusCode, body)
	}
	for _, want := range []string{`name="csrf_token"`, `action="/admin/setup/server"`, `name="data_dir"`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /admin/setup/server: body lacks %s\n%s", want, body)
		}
	}
	if !resp.Close {
		t.Errorf("GET /admin/setup/server: keep-alive kept (Connection: %q); want Connection: close from SetEnv nokeepalive", resp.Header.Get("Connection"))
	}
	for _, tc := range []struct {
		path, accept string
		status       int
		location     string
	}{
		{"/", "text/html", http.StatusSeeOther, "/admin/setup/server"},
		{"/@alice", "text/html", http.StatusSeeOther, "/admin/setup/server"},
		{"/murlog.cgi/admin/setup", "text/html", http.StatusSeeOther, "/admin/setup/server"},
		{"/healthz", "text/plain", http.StatusServiceUnavailable, ""},
	} {
		resp, body := get(t, s.URL, tc.path, map[string]string{"Accept": tc.accept})
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("GET %s: status %d, Location %q; want %d, %q\n%s", tc.path, resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location, body)
		}
	}
	if _, err := os.Stat(s.Path("murlog.ini")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("murlog.ini before step 1: stat err %v; want it absent", err)
	}
}

type postResult struct {
	ID      string  `json:"id"`
	Content string  `json:"content"`
	Source  *string `json:"source"`
	URL     string  `json:"url"`
}

// Both wizard steps, login, posting and anonymous reading, all through Apache.
func TestSetupPostAndReadThroughApache(t *testing.T) {
	t.Parallel()
	s, owner := setUp(t)
	ctx := context.Background()

	var created postResult
	if err := owner.Call(ctx, "posts.create", map[string]any{"content": "hello from CGI"}, &created); err != nil {
		t.Fatalf("posts.create: %v", err)
	}
	if created.ID == "" {
		t.Fatalf("posts.create: no id in %+v", created)
	}

	var got postResult
	if err := s.Client().Call(ctx, "posts.get", map[string]string{"id": created.ID}, &got); err != nil {
		t.Fatalf("anonymous posts.get: %v", err)
	}
	if got.ID != created.ID {
		t.Errorf("posts.get: id %q; want %q", got.ID, created.ID)
	}
	if !strings.Contains(got.Content, "hello from CGI") {
		t.Errorf("posts.get: content %q; want it to contain %q", got.Content, "hello from CGI")
	}
	if want := "http://" + s.Addr + "/@alice/"; !strings.HasPrefix(got.URL, want) {
		t.Errorf("posts.get: url %q; want prefix %q", got.URL, want)
	}
	if got.Source != nil {
		t.Errorf("anonymous posts.get: source %q; want it omitted", *got.Source)
	}
	// After step 1 the block also closes the data directory.
	if ht := readFile(t, s.Path(".htaccess")); !strings.Contains(ht, "RewriteRule ^data(/|$) - [F,L]") {
		t.Errorf(".htaccess after setup lacks the data directory rule:\n%s", ht)
	}

	// db_statements_total counts under CGI: each process adds its counts
	// to data/metrics/statements as it ends, and any process's /metrics
	// reads them (the scrape itself is "system").
	const token = "cgi-metrics-token-0123456789"
	setMetricsToken(t, s, token)
	public := func() int {
		resp, body := get(t, s.URL, "/metrics", map[string]string{"Authorization": "Bearer " + token})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/metrics through CGI: %d\n%s", resp.StatusCode, body)
		}
		for _, line := range strings.Split(body, "\n") {
			if v, ok := strings.CutPrefix(line, `db_statements_total{class="public"} `); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatal(line)
				}
				return n
			}
		}
		t.Fatalf("/metrics through CGI has no public statement count:\n%s", body)
		return 0
	}
	// A search, which no artifact answers: a post page is an artifact
	// after its first read, and costs no statement from then on.
	page := func() {
		if resp, body := get(t, s.URL, "/@alice/search?q=post", map[string]string{"Accept": "text/html"}); resp.StatusCode != http.StatusOK {
			t.Fatalf("search page through CGI: %d\n%s", resp.StatusCode, body)
		}
	}
	// A process adds its counts as it exits, after its response: scrape
	// until they are there (each scrape is a process of its own).
	above := func(n int) int {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			if v := public(); v > n {
				return v
			}
		}
		t.Fatalf("public statements through CGI stayed at %d", n)
		return 0
	}
	page()
	first := above(0)
	page()
	second := above(first)
	if third := public(); third != second {
		t.Errorf("public statements through CGI: %d after a page, %d after another, %d after a scrape; want the scrape to add none", first, second, third)
	}
	if st, err := os.Stat(s.Path("data/metrics/statements")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the counts file: %v, %v; want it private (0600)", st, err)
	}

	// Lockdown holds on the CGI path: each request is a new process that
	// reads it from the database, alone or in a batch.
	if err := owner.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": true}, nil); err != nil {
		t.Fatalf("set_lockdown through CGI: %v", err)
	}
	var e *client.Error
	if err := owner.Call(ctx, "posts.create", map[string]any{"content": "during"}, nil); !errors.As(err, &e) || e.HTTPStatus != http.StatusLocked {
		t.Errorf("posts.create under lockdown through CGI: %v; want 423", err)
	}
	status, raw, err := owner.Post(ctx, "/api/mur/v1/rpc", "application/json",
		[]byte(`[{"jsonrpc":"2.0","id":1,"method":"site.controls.get"},{"jsonrpc":"2.0","id":2,"method":"posts.create","params":{"content":"x"}}]`))
	if err != nil || status != http.StatusOK || !strings.Contains(string(raw), `"code":"locked"`) || strings.Count(string(raw), `"error"`) != 1 {
		t.Errorf("a batch under lockdown through CGI: %d %v %s; want the change refused, the read answered", status, err, raw)
	}
	if err := owner.Call(ctx, "site.controls.set_lockdown", map[string]any{"on": false}, nil); err != nil {
		t.Fatalf("lifting the lockdown through CGI: %v", err)
	}
	if err := owner.Call(ctx, "posts.create", map[string]any{"content": "after"}, nil); err != nil {
		t.Errorf("posts.create after the lockdown through CGI: %v", err)
	}
}

// murlog's private files answer 403 through Apache, however the path is
// spelled.
func TestPrivateFilesAreForbidden(t *testing.T) {
	s, _ := setUp(t)

	st, err := os.Stat(s.Path("murlog.ini"))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Errorf("murlog.ini mode %#o; want 0600", got)
	}
	// The reset file, written the way the owner would: as the CGI user.
	out, err := s.Command(apachetest.Script, "reset", "--config", s.Path("murlog.ini")).CombinedOutput()
	if err != nil {
		t.Fatalf("murlog.cgi reset: %v\n%s", err, out)
	}
	if _, err := os.Stat(s.Path("murlog.reset")); err != nil {
		t.Fatalf("after murlog.cgi reset: %v\n%s", err, out)
	}
	// Each CGI process is the database's last connection, so -wal and -shm
	// are usually gone between requests: put them there to test the rule.
	for _, name := range []string{"data/murlog.db-wal", "data/murlog.db-shm"} {
		if _, err := os.Stat(s.Path(name)); errors.Is(err, fs.ErrNotExist) {
			s.WriteFile(t, name, "", 0o644)
		}
	}
	s.WriteFile(t, "data/notes.txt", "a file in the data directory\n", 0o644)

	for _, path := range []string{
		"/murlog.ini",
		"/murlog.reset",
		"/data",
		"/data/",
		"/data/murlog.db",
		"/data/murlog.db-wal",
		"/data/murlog.db-shm",
		"/data/murlog.db-journal", // absent: refused by name all the same
		"/data/notes.txt",
		"/./murlog.ini",
		"/data/../murlog.ini",
		"/%6Durlog.ini",
		"/murlog.ini/",
		"/murlog.cgi/../murlog.ini",
		"/data/murlog.db?download=1",
	} {
		resp, body := get(t, s.URL, path, nil)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s: status %d; want 403", path, resp.StatusCode)
		}
		for _, secret := range []string{"data_dir", "SQLite format", "secret"} {
			if strings.Contains(body, secret) {
				t.Errorf("GET %s: body contains %q:\n%s", path, secret, body)
			}
		}
	}
}

// An API token sent as Authorization: Bearer reaches murlog through Apache,
// both through the rewrite and with the script named in the URL.
func TestBearerTokenThroughApache(t *testing.T) {
	s, owner := setUp(t)
	ctx := context.Background()
	var tok struct {
		Token string `json:"token"`
	}
	if err := owner.Call(ctx, "tokens.create", map[string]string{"name": "ci"}, &tok); err != nil {
		t.Fatalf("tokens.create: %v", err)
	}
	if tok.Token == "" {
		t.Fatal("tokens.create: empty token")
	}
	// Well-formed but unknown: murlog has to look it up to refuse it.
	last := "a"
	if strings.HasSuffix(tok.Token, last) {
		last = "b"
	}
	wrong := tok.Token[:len(tok.Token)-1] + last
	for _, base := range []struct{ name, url string }{
		{"rewritten", s.URL},
		{"script in URL", s.URL + "/murlog.cgi"},
	} {
		for _, tc := range []struct {
			name, token string
			status      int // 0: success
		}{
			{"valid token", tok.Token, 0},
			{"wrong token", wrong, http.StatusUnauthorized},
			{"no token", "", http.StatusUnauthorized},
		} {
			t.Run(base.name+"/"+tc.name, func(t *testing.T) {
				c := client.New(base.url)
				c.Token = tc.token
				var list struct {
					Items []struct {
						Name string `json:"name"`
					} `json:"items"`
				}
				err := c.Call(ctx, "tokens.list", nil, &list)
				if tc.status == 0 {
					if err != nil {
						t.Fatalf("tokens.list: %v; want success", err)
					}
					if len(list.Items) != 1 || list.Items[0].Name != "ci" {
						t.Errorf("tokens.list: %+v; want one token named ci", list.Items)
					}
					return
				}
				var e *client.Error
				if !errors.As(err, &e) {
					t.Fatalf("tokens.list: err %v; want a JSON-RPC error", err)
				}
				if e.HTTPStatus != tc.status || e.Data.Code != "unauthorized" {
					t.Errorf("tokens.list: HTTP %d, code %q; want %d, %q", e.HTTPStatus, e.Data.Code, tc.status, "unauthorized")
				}
			})
		}
	}
}

// Re-posting setup step 2 after completion answers 409 and changes nothing.
func TestSetupStep2AfterCompletionConflicts(t *testing.T) {
	s, owner := setUp(t)
	ctx := context.Background()
	personas := func() string {
		var raw json.RawMessage
		if err := s.Client().Call(ctx, "personas.list", nil, &raw); err != nil {
			t.Fatalf("personas.list: %v", err)
		}
		return string(raw)
	}
	beforePersonas := personas()
	beforeIni := readFile(t, s.Path("murlog.ini"))
	const other = "another password entirely"

	for _, path := range []string{"/admin/setup", "/murlog.cgi/admin/setup"} {
		form := url.Values{"domain": {"evil.example"}, "username": {"mallory"}, "display_name": {"Mallory"},
			"password": {other}, "password_confirm": {other}, "csrf_token": {owner.Cookie(ctx, "csrf_token")}}
		req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "text/html")
		resp, err := owner.HTTP.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Errorf("POST %s: reading the answer: %v; want a complete response", path, err)
		}
		if resp.StatusCode != http.StatusConflict {
			t.Errorf("POST %s after setup: status %d; want 409\n%s", path, resp.StatusCode, body)
		}
	}

	if got := personas(); got != beforePersonas {
		t.Errorf("personas after the re-post:\n%s\nwant unchanged:\n%s", got, beforePersonas)
	}
	if got := readFile(t, s.Path("murlog.ini")); got != beforeIni {
		t.Errorf("murlog.ini after the re-post:\n%s\nwant unchanged:\n%s", got, beforeIni)
	}
	var e *client.Error
	if err := s.Client().Login(ctx, other); !errors.As(err, &e) || e.Data.Code != "unauthorized" {
		t.Errorf("login with the re-posted password: err %v; want unauthorized", err)
	}
	if err := s.Client().Login(ctx, password); err != nil {
		t.Errorf("login with the original password: %v; want success", err)
	}
}

// Answers that do not need the request body (409, 415, 404, …) arrive
// complete: murlog must consume the body before it exits, or mod_cgid's
// socket is reset and Apache truncates or drops the response.
func TestUnreadRequestBodyKeepsResponseIntact(t *testing.T) {
	s, owner := setUp(t)
	csrf := owner.Cookie(context.Background(), "csrf_token")
	form := url.Values{"csrf_token": {csrf}, "filler": {strings.Repeat("x", 2000)}}.Encode()
	big := strings.Repeat("y", 900<<10)
	for _, tc := range []struct {
		name, path, contentType, body string
		status                        int
	}{
		{"step 2 after setup", "/admin/setup", "application/x-www-form-urlencoded", form, http.StatusConflict},
		{"step 1 after setup", "/admin/setup/server", "application/x-www-form-urlencoded", form, http.StatusConflict},
		{"rpc wrong content type", "/api/mur/v1/rpc", "text/plain", form, http.StatusUnsupportedMediaType},
		{"rpc wrong content type, big body", "/api/mur/v1/rpc", "text/plain", big, http.StatusUnsupportedMediaType},
		{"unknown path", "/no/such/page", "application/json", `{"a":"` + strings.Repeat("z", 3000) + `"}`, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 5; i++ {
				req, err := http.NewRequest(http.MethodPost, s.URL+tc.path, strings.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", tc.contentType)
				resp, err := owner.HTTP.Do(req)
				if err != nil {
					t.Fatalf("POST %s (try %d): %v; want an answer", tc.path, i, err)
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != tc.status {
					t.Fatalf("POST %s (try %d): status %d, reading the body: %v; want %d and a complete body", tc.path, i, resp.StatusCode, err, tc.status)
				}
			}
		})
	}
	if log := s.ErrorLog(); strings.Contains(log, "AH00574") {
		t.Errorf("Apache logged reset CGI output (AH00574); want none")
	}
}

// setMetricsToken adds metrics_token to the site's murlog.ini, as the owner
// would to scrape /metrics.
func setMetricsToken(t *testing.T, s *apachetest.Server, token string) {
	t.Helper()
	ini, err := os.OpenFile(s.Path("murlog.ini"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ini.Close()
	if _, err := fmt.Fprintf(ini, "metrics_token = %q\n", token); err != nil {
		t.Fatal(err)
	}
}
