// Package e2e drives murlog as a CGI program under a real Apache httpd
// (see internal/apachetest): the .htaccess block murlog writes, the setup
// wizard, the API and the protection of murlog's files, end to end.
//
// The tests skip when Apache is not installed, except with CI=true, where
// they fail. The browser tests of the public blog (blog_browser_test.go)
// and of the owner's app (app_browser_test.go) likewise need Debian's
// chromium, Java and e2e/browser's npm packages (the app's also web/spa's).
// The CGI start-up measurements run with MURLOG_BENCH_CGI=1
// (TestCGITiming) or as BenchmarkCGIProcess.
package e2e

import (
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
)

// parallelSet reports whether -test.parallel was given.
func parallelSet() bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	return set
}

func TestMain(m *testing.M) {
	flag.Parse()
	// Most of these tests wait on other processes — Apache, CGI starts,
	// spawned workers, murlog serve, Chromium — rather than use this one's
	// CPU, so more of them run at once than the CPUs (go test's default):
	// the two browser tests, the suite's long poles, then start at once
	// instead of behind the Apache tests. -parallel on the command line
	// still wins.
	if f := flag.Lookup("test.parallel"); f != nil && !parallelSet() {
		f.Value.Set(strconv.Itoa(max(4, 2*runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	apachetest.RemoveBuilds()
	os.Exit(code)
}

// password is the owner password of every site set up here.
const password = "correct horse battery"

// setUp starts Apache with a fresh murlog.cgi and runs both setup steps
// through it; the returned client is logged in as the owner, alice.
func setUp(t *testing.T) (*apachetest.Server, *client.Client) {
	t.Helper()
	return setUpWith(t, apachetest.Options{})
}

// setUpWith is setUp with Apache started with o.
func setUpWith(t *testing.T, o apachetest.Options) (*apachetest.Server, *client.Client) {
	t.Helper()
	s := apachetest.Start(t, o)
	return s, setUpOn(t, s)
}

// setUpOn runs both setup steps through a started Apache whose document
// root holds murlog.cgi and returns the owner's logged-in client.
func setUpOn(t *testing.T, s *apachetest.Server) *client.Client {
	t.Helper()
	ctx := context.Background()
	c := s.Client()
	// As the owner does after uploading: open the script itself, which
	// writes the .htaccess that routes every other path to it.
	if status, _, body, err := c.Get(ctx, "/"+apachetest.Script); err != nil || status != http.StatusSeeOther {
		t.Fatalf("first GET /%s: status %d, err %v; want 303\n%s", apachetest.Script, status, err, body)
	}
	if err := c.Setup(ctx, s.Addr, "alice", password); err != nil {
		t.Fatalf("setup through Apache: %v", err)
	}
	if err := c.Login(ctx, password); err != nil {
		t.Fatalf("login through Apache: %v", err)
	}
	return c
}

// get fetches path with the given headers, without following redirects.
func get(t *testing.T, base, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", path, err)
	}
	return resp, string(b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
