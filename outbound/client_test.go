package outbound

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murlog/murlog"
)

// local returns a client that may reach loopback test servers as a.test.
func local(t *testing.T, o Options) *Client {
	t.Helper()
	o.AllowHTTP, o.AllowPrivate = true, true
	c, _ := newClient(t, o, dns(map[string]string{"a.test": "127.0.0.1"}))
	return c
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.URL.Query().Get("n"), &n)
		if r.URL.Query().Get("chunked") != "" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		w.Write(bytes.Repeat([]byte("x"), n))
	})
	c := local(t, Options{MaxBody: 1000})
	for _, tc := range []struct {
		query string
		ok    bool
	}{
		{"n=1000", true}, {"n=1001", false}, {"n=1000&chunked=1", true}, {"n=5000&chunked=1", false},
	} {
		r, err := c.Get(context.Background(), s.at("a.test", "/?"+tc.query), "", nil)
		switch {
		case tc.ok && (err != nil || len(r.Body) != 1000):
			t.Errorf("Get(%s) = %v; want the 1000-byte body", tc.query, err)
		case !tc.ok && (err == nil || r != nil || !strings.Contains(err.Error(), "over 1000 bytes")):
			t.Errorf("Get(%s) = %v, %v; want no body and an error saying over 1000 bytes", tc.query, r, err)
		}
	}
}

// TestGzipBombCapped: a small gzip body that inflates to 32 MiB is cut at
// MaxBody after decompression, quickly; an honest gzip body is inflated.
func TestGzipBombCapped(t *testing.T) {
	t.Parallel()
	// 32 gzip members of 1 MiB of zeros each: one stream to a reader.
	var member, small bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	bomb := bytes.Repeat(member.Bytes(), 32)
	zw = gzip.NewWriter(&small)
	zw.Write([]byte(`{"type":"Person"}`))
	zw.Close()
	var acceptEncoding atomic.Value
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding.Store(r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/bomb" {
			w.Write(bomb)
			return
		}
		w.Write(small.Bytes())
	})
	c := local(t, Options{})
	start := time.Now()
	_, err := c.Get(context.Background(), s.at("a.test", "/bomb"), "", nil)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("over %d bytes", DefaultMaxBody)) {
		t.Fatalf("gzip bomb (%d bytes inflating to 32 MiB): err = %v; want over the cap", len(bomb), err)
	}
	if took > 2*time.Second {
		t.Errorf("gzip bomb took %v; want it cut early", took)
	}
	r, err := c.Get(context.Background(), s.at("a.test", "/small"), "", nil)
	if err != nil || string(r.Body) != `{"type":"Person"}` {
		t.Errorf("gzip body = %q, %v; want it inflated", r.Body, err)
	}
	if ae := acceptEncoding.Load(); ae != "gzip" {
		t.Errorf("Accept-Encoding = %q; want gzip", ae)
	}
	t.Logf("gzip bomb of %d bytes refused in %v", len(bomb), took)
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var n int
		switch {
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case r.URL.Path == "/307":
			http.Redirect(w, r, "/target", http.StatusTemporaryRedirect)
		case r.URL.Path == "/target":
			w.Write([]byte("target " + r.Method))
		default:
			if _, err := fmt.Sscanf(r.URL.Path, "/chain/%d", &n); err == nil && n > 0 {
				http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusMovedPermanently)
				return
			}
			w.Write([]byte("end of " + r.URL.Path))
		}
	})
	c := local(t, Options{})

	_, err := c.Get(context.Background(), s.at("a.test", "/loop"), "", nil)
	if !errors.Is(err, errTooManyRedirects) || hits.Load() != 1+DefaultMaxRedirects {
		t.Errorf("redirect loop: err = %v after %d requests; want too many redirects after %d", err, hits.Load(), 1+DefaultMaxRedirects)
	}

	r, err := c.Get(context.Background(), s.at("a.test", "/chain/3"), "", nil)
	if err != nil || string(r.Body) != "end of /chain/0" || r.URL != s.at("a.test", "/chain/0") {
		t.Errorf("3 redirects = %+v, %v; want the final body and URL", r, err)
	}

	hits.Store(0)
	_, err = c.Post(context.Background(), s.at("a.test", "/307"), "application/activity+json", []byte("{}"), nil)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusTemporaryRedirect || hits.Load() != 1 {
		t.Errorf("POST answered 307: err = %v after %d requests; want a 307 StatusError, not followed", err, hits.Load())
	}
	if Permanent(err) {
		t.Errorf("Permanent(307) = true; want false (not a 4xx)")
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/trickle" {
			for i := 0; i < 100; i++ {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			return
		}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	c := local(t, Options{Timeout: 200 * time.Millisecond})
	for _, path := range []string{"/slow-headers", "/trickle"} {
		start := time.Now()
		_, err := c.Get(context.Background(), s.at("a.test", path), "", nil)
		took := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || murlog.ErrorCode(err) != murlog.EUnavailable || Permanent(err) {
			t.Errorf("%s: err = %v; want a deadline, unavailable, not permanent", path, err)
		}
		if took > time.Second {
			t.Errorf("%s took %v with Timeout 200ms", path, took)
		}
	}
}

// TestHeadersOnEveryRequest: User-Agent on GETs, POSTs, redirect hops and
// second knocks; Accept on GETs, Content-Type and the body on POSTs.
func TestHeadersOnEveryRequest(t *testing.T) {
	t.Parallel()
	type seen struct{ method, path, ua, accept, ctype, body string }
	got := make(chan seen, 10)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b := new(bytes.Buffer)
		b.ReadFrom(r.Body)
		got <- seen{r.Method, r.URL.Path, r.UserAgent(), r.Header.Get("Accept"), r.Header.Get("Content-Type"), b.String()}
		switch {
		case r.URL.Path == "/moved":
			http.Redirect(w, r, "/actor", http.StatusFound)
		case r.Header.Get("X-Test-Scheme") == "rfc9421":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	const ua = "murlog/dev (+https://murlog.test/)"
	c := local(t, Options{UserAgent: ua})
	if _, err := c.Get(context.Background(), s.at("a.test", "/moved"), "application/activity+json", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Post(context.Background(), s.at("a.test", "/inbox"), "application/activity+json", []byte(`{"a":1}`), &testSigner{}); err != nil {
		t.Fatal(err)
	}
	close(got)
	var all []seen
	for g := range got {
		all = append(all, g)
	}
	want := []seen{
		{"GET", "/moved", ua, "application/activity+json", "", ""},
		{"GET", "/actor", ua, "application/activity+json", "", ""},
		{"POST", "/inbox", ua, "", "application/activity+json", `{"a":1}`},
		{"POST", "/inbox", ua, "", "application/activity+json", `{"a":1}`},
	}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Errorf("requests =\n%v\nwant\n%v", all, want)
	}
	if New(Options{}).o.UserAgent == "" {
		t.Error("default User-Agent is empty")
	}
}

// TestConnectionReuse: deliveries to one host share a connection.
func TestConnectionReuse(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte("accepted"))
	})
	c := local(t, Options{})
	for i := 0; i < 20; i++ {
		if _, err := c.Post(context.Background(), s.at("a.test", "/inbox"), "application/activity+json", []byte("{}"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Errorf("20 sequential POSTs opened %d connections; want 1", n)
	}
}

func TestStatusError(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte("slow\x1b[2J down\n" + strings.Repeat("é", 300)))
		case "/gone":
			w.WriteHeader(http.StatusGone)
		}
	})
	c := local(t, Options{})
	_, err := c.Get(context.Background(), s.at("a.test", "/busy"), "", nil)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 429 || se.RetryAfter != 2*time.Minute || Permanent(err) {
		t.Fatalf("429: err = %v; want a StatusError with RetryAfter 2m, not permanent", err)
	}
	if len(se.Body) > 200 || strings.ContainsAny(se.Body, "\x1b\n") || !strings.HasPrefix(se.Body, "slow [2J down é") {
		t.Errorf("Body = %q; want ≤ 200 bytes of sanitized text", se.Body)
	}
	if !strings.Contains(err.Error(), "GET "+s.at("a.test", "/busy")) {
		t.Errorf("err = %q; want it to name the request", err)
	}
	if _, err := c.Get(context.Background(), s.at("a.test", "/gone"), "", nil); !Permanent(err) {
		t.Errorf("410: Permanent(%v) = false; want true", err)
	}
}

func TestPermanent(t *testing.T) {
	t.Parallel()
	status := func(s int, exhausted bool) error {
		return fmt.Errorf("POST x: %w", &StatusError{Status: s, exhausted: exhausted})
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"forbidden address", forbidden("x.test", netip.MustParseAddr("10.0.0.5"), "private network"), true},
		{"bad URL", badURL("nope"), true},
		{"400", status(400, false), true},
		{"404", status(404, false), true},
		{"410", status(410, false), true},
		{"422", status(422, false), true},
		{"408", status(408, true), false},
		{"429", status(429, true), false},
		{"401 one scheme tried", status(401, false), false},
		{"403 one scheme tried", status(403, false), false},
		{"401 both schemes tried", status(401, true), true},
		{"403 both schemes tried", status(403, true), true},
		{"500", status(500, true), false},
		{"503", status(503, true), false},
		{"302", status(302, true), false},
		{"timeout", &murlog.Error{Code: murlog.EUnavailable, Err: context.DeadlineExceeded}, false},
		{"other", errors.New("boom"), false},
	} {
		if got := Permanent(tc.err); got != tc.want {
			t.Errorf("Permanent(%s: %v) = %v; want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"30", 30 * time.Second}, {"-5", 0}, {"0", 0}, {"99999999999", 24 * time.Hour},
		{"Tue, 01 Dec 2026 12:05:00 GMT", 5 * time.Minute}, {"Tue, 01 Dec 2026 11:00:00 GMT", 0}, {"soon", 0},
	} {
		if got := retryAfter(tc.v, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v; want %v", tc.v, got, tc.want)
		}
	}
}
