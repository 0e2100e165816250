package fedtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murlog/murlog/app"
	"github.com/murlog/murlog/client"
	"github.com/murlog/murlog/internal/apachetest"
	"github.com/murlog/murlog/internal/testsite"
)

// Password is the owner password of every instance.
const Password = testsite.Password

// Options tune one instance.
type Options struct {
	// Name is the host name without port ("alpha.test"). The domain is
	// Name when the instance could listen on port 80 of a loopback address
	// of its own, else Name:PORT (see listen).
	Name string
	// OwnLoopback, with Name empty, names the instance by a loopback
	// address of its own ("127.8.9.10": a domain with neither a DNS name
	// nor a port) where it may listen on port 80, so a real process
	// (murlog.cgi, which resolves names with the system resolver) reaches
	// it without the Names table; elsewhere it is 127.0.0.1 on a free
	// port, and the domain is 127.0.0.1:PORT.
	OwnLoopback bool
	// Username is the primary persona's; "owner" when empty.
	Username string
	// Env adds MURLOG_* overrides (MURLOG_SCHEME=http and
	// MURLOG_ALLOW_PRIVATE_NETWORK=1 are always set).
	Env map[string]string
	// CavageOnly makes the instance a peer that speaks only
	// draft-cavage: it signs with cavage alone and its inbox refuses RFC
	// 9421 signatures with 401 (app.Options.CavageOnly).
	CavageOnly bool
	// App, when set, adjusts the app options before app.New (test-only
	// knobs such as a peer that speaks only draft-cavage).
	App func(*app.Options)
}

// Instance is one running murlog: set up through the wizard, its owner
// logged in, its job worker running until the test ends.
type Instance struct {
	Name     string // host name without port
	Domain   string // the site's domain: Name, or Name:PORT off port 80
	Base     string // http://Domain
	Username string
	Dir      string // murlog.ini, data/, media/
	App      *app.App
	Server   *httptest.Server
	Owner    *client.Client // logged in, reaching the site through Names
	Logs     *testsite.SyncBuffer
	// Apache is the Apache httpd that runs the instance as CGI (StartCGI);
	// nil for the other kinds.
	Apache *apachetest.Server
	names  *Names
	// logText, when set, reads the instance's log lines (a CGI instance's
	// are in Apache's error_log and worker.log); else Logs holds them.
	logText func() string
}

// Start starts an instance named o.Name in names, runs both setup steps
// and logs the owner in. The instance, its listener and its worker stop
// when the test ends.
func Start(tb testing.TB, names *Names, o Options) *Instance {
	tb.Helper()
	if o.Username == "" {
		o.Username = "owner"
	}
	if o.Name == "" && o.OwnLoopback {
		o.Name = loopback.String()
		if a, ok := ownLoopback(); ok {
			o.Name = a.String()
		}
	}
	in := &Instance{Name: o.Name, Username: o.Username, Dir: tb.TempDir(), Logs: &testsite.SyncBuffer{}, names: names}
	env := map[string]string{"MURLOG_SCHEME": "http", "MURLOG_ALLOW_PRIVATE_NETWORK": "1"}
	for k, v := range o.Env {
		env[k] = v
	}
	ln, addr := listen(tb, o.Name)
	in.Domain = o.Name
	if port := ln.Addr().(*net.TCPAddr).Port; port != 80 {
		in.Domain = hostPort(o.Name, port)
	}
	in.Base = "http://" + in.Domain
	names.Add(o.Name, addr)

	opts := app.Options{
		ConfigPath: filepath.Join(in.Dir, "murlog.ini"),
		Getenv:     func(k string) string { return env[k] },
		Logger:     slog.New(slog.NewJSONHandler(in.Logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Stderr:     in.Logs,
	}
	federate(&opts, names, o.CavageOnly)
	if o.App != nil {
		o.App(&opts)
	}
	a, err := app.New(context.Background(), opts)
	if err != nil {
		ln.Close()
		tb.Fatalf("%s: app.New: %v", o.Name, err)
	}
	in.App = a
	in.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: a}}
	in.Server.Start()
	tb.Cleanup(func() {
		in.Server.Close()
		in.App.Close()
	})
	in.Owner = in.NewClient()
	ctx := context.Background()
	if err := in.Owner.Setup(ctx, in.Domain, o.Username, Password); err != nil {
		tb.Fatalf("%s: setup: %v\nlogs:\n%s", o.Name, err, in.Logs)
	}
	if err := in.Owner.Login(ctx, Password); err != nil {
		tb.Fatalf("%s: login: %v", o.Name, err)
	}
	in.startWorker(tb)
	return in
}

// listen opens the listener of the instance named name: port 80 of a
// loopback address of its own (127.x.y.z) where the process may bind it,
// as two sites named in /etc/hosts would run, so the domain carries no
// port; otherwise a free port of 127.0.0.1, and the domain is name:port.
// A name that is an IP address gets a free port of that address.
func listen(tb testing.TB, name string) (net.Listener, netip.Addr) {
	tb.Helper()
	if a, err := netip.ParseAddr(name); err == nil {
		if a != loopback { // an address of its own (Options.OwnLoopback): port 80 first
			if ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 80).String()); err == nil {
				return ln, a
			}
		}
		ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String())
		if err != nil {
			tb.Fatal(err)
		}
		return ln, a
	}
	for range 5 {
		a := netip.AddrFrom4([4]byte{127, byte(1 + rand.IntN(254)), byte(rand.IntN(256)), byte(1 + rand.IntN(254))})
		ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 80).String())
		if err == nil {
			return ln, a
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			break // not permitted (no root, no CAP_NET_BIND_SERVICE)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln, loopback
}

// ownLoopback picks a loopback address (127.x.y.z) whose port 80 this
// process may bind and nobody holds, or reports false (no root, no
// CAP_NET_BIND_SERVICE). The port is free when it returns; whoever binds
// it next should do so at once.
func ownLoopback() (netip.Addr, bool) {
	for range 5 {
		a := netip.AddrFrom4([4]byte{127, byte(1 + rand.IntN(254)), byte(rand.IntN(256)), byte(1 + rand.IntN(254))})
		ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 80).String())
		if err == nil {
			ln.Close()
			return a, true
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	return netip.Addr{}, false
}

// startWorker runs the app's worker as serve does, stopped (and waited
// for) when the test ends, before the app closes.
func (in *Instance) startWorker(tb testing.TB) {
	tb.Helper()
	w := in.App.NewWorker("murlog-fedtest")
	if w == nil {
		tb.Fatalf("%s: no worker after setup", in.Name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				tb.Errorf("%s: worker: %v", in.Name, err)
			}
		case <-time.After(15 * time.Second):
			tb.Errorf("%s: worker did not stop within 15 s", in.Name)
		}
	})
}

// NewClient returns a logged-out client that reaches the instance by its
// name, through Names.
func (in *Instance) NewClient() *client.Client {
	c := client.New(in.Base)
	c.HTTP.Transport = &http.Transport{DialContext: in.names.DialContext}
	return c
}

// Acct is the owner's address as a remote server writes it.
func (in *Instance) Acct() string { return "@" + in.Username + "@" + in.Domain }

// ActorURL is the owner's actor id.
func (in *Instance) ActorURL() string { return in.Base + "/@" + in.Username }

// Call calls method as the owner and decodes the result into out (which
// may be nil); any error fails the test.
func (in *Instance) Call(tb testing.TB, method string, params, out any) {
	tb.Helper()
	if err := in.Owner.Call(context.Background(), method, params, out); err != nil {
		tb.Fatalf("%s: %s(%s): %v", in.Name, method, compact(params), err)
	}
}

// Try calls method as the owner and returns its error.
func (in *Instance) Try(method string, params, out any) error {
	return in.Owner.Call(context.Background(), method, params, out)
}

// Get fetches path from the instance with the given Accept header, as a
// remote server would (no cookies), and returns the status and body.
func (in *Instance) Get(tb testing.TB, path, accept string) (int, []byte) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, in.Base+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: in.names.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatalf("%s: GET %s: %v", in.Name, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s: GET %s: read body: %v", in.Name, path, err)
	}
	return resp.StatusCode, b
}

// Requests returns the request log lines (method, path, status) the
// instance wrote whose path satisfies match.
func (in *Instance) Requests(match func(method, path string, status int) bool) []Request {
	var out []Request
	for _, line := range strings.Split(in.LogText(), "\n") {
		var r struct {
			Msg    string `json:"msg"`
			Method string `json:"method"`
			Path   string `json:"path"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Msg != "request" {
			continue
		}
		if match(r.Method, r.Path, r.Status) {
			out = append(out, Request{r.Method, r.Path, r.Status})
		}
	}
	return out
}

// LogText returns the JSON log lines the instance wrote so far.
func (in *Instance) LogText() string {
	if in.logText != nil {
		return in.logText()
	}
	return in.Logs.String()
}

// Request is one logged request.
type Request struct {
	Method, Path string
	Status       int
}

func (r Request) String() string { return r.Method + " " + r.Path + " " + strconv.Itoa(r.Status) }

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
