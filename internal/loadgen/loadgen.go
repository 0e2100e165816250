// Package loadgen is the load harness's open-loop HTTP generator: visitors
// start on a fixed schedule (visitor i at t0 + i/rate) whatever the server
// does, so a slow server meets the same crowd rather than a politely
// waiting one (a closed loop hides overload by slowing its own arrivals).
// Each visitor dials its own TCP connection and sends its requests in
// order over it, HTTP/1.1 keep-alive, as a remote server or a browser
// arriving from nowhere does.
//
// When the generator itself cannot keep the schedule (the machine is
// busy), the result says how late each visitor started (generator lag),
// so a result is never silently closed-loop.
package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultTimeout is a request's deadline when Config.Timeout is zero: what
// a remote server or a patient browser waits.
const DefaultTimeout = 15 * time.Second

// Request is one request of a visitor's scenario.
type Request struct {
	// Name groups requests in the summary ("actor JSON").
	Name string
	// Method is GET when empty.
	Method string
	// Path is the request target, query included.
	Path   string
	Header http.Header
}

// Clock is the time the generator schedules and measures with; Real in
// use, a settable one in tests.
type Clock interface {
	Now() time.Time
	// SleepUntil returns at t or later (at once when t has passed).
	SleepUntil(t time.Time)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

// Real is the wall clock.
var Real Clock = realClock{}

// Config is one run.
type Config struct {
	// Addr is the server's host:port; Host the Host header (Addr when
	// empty).
	Addr, Host string
	// Rate is visitors started per second; Visitors how many.
	Rate     float64
	Visitors int
	// Visitor returns visitor i's requests, sent in order.
	Visitor func(i int) []Request
	// Timeout is each request's deadline from its start (dial included);
	// DefaultTimeout when zero.
	Timeout time.Duration
	// Clock is Real when nil.
	Clock Clock
}

// Error kinds of a failed request. A response outside 2xx/3xx is
// "status NNN".
const (
	KindTimeout = "timeout"
	KindRefused = "refused"
	KindReset   = "reset"
	KindClosed  = "closed" // the connection ended before the whole response
	KindOther   = "other"
)

// Sample is one request's outcome.
type Sample struct {
	Name string
	// Start is when the request started, from the run's t0.
	Start   time.Duration
	Latency time.Duration // start to the last body byte read (or the failure)
	Status  int
	Bytes   int64 // body bytes read
	// Kind is empty on success, else one of the Kind… constants or
	// "status NNN".
	Kind string
	// Err is the error's text for KindOther (what it was is not known
	// otherwise: "too many open files", say).
	Err string
}

// Result is a run's raw record.
type Result struct {
	Samples []Sample
	// Starts is, per visitor (or call), when it was launched from t0; Lag
	// how late that was against its schedule.
	Starts, Lag []time.Duration
	// Rate is the rate asked for; Launch the time from t0 to the last
	// visitor's start; Wall from t0 to the last request's end.
	Rate         float64
	Launch, Wall time.Duration
	// Conns is the number of TCP connections dialled; PeakInFlight the
	// most visitors (or calls) started and not yet finished, seen at a
	// start: when it nears rate × timeout, the server has stopped keeping
	// up and the crowd piles up.
	Conns, PeakInFlight int
}

// Run runs cfg until every visitor has finished (or ctx ends, which stops
// the launching and fails the requests in flight).
func Run(ctx context.Context, cfg Config) *Result {
	clock := cfg.Clock
	if clock == nil {
		clock = Real
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	host := cfg.Host
	if host == "" {
		host = cfg.Addr
	}
	per := make([][]Sample, cfg.Visitors)
	conns := make([]int, cfg.Visitors)
	t0 := clock.Now()
	starts, lag, launch, peak := schedule(ctx, clock, t0, cfg.Visitors, interval(cfg.Rate), func(i int) {
		v := visitor{addr: cfg.Addr, host: host, timeout: timeout, clock: clock, t0: t0}
		per[i] = v.run(ctx, cfg.Visitor(i))
		conns[i] = v.conns
	})
	r := &Result{Starts: starts, Lag: lag, Rate: cfg.Rate, Launch: launch, PeakInFlight: peak}
	for i := range per {
		r.Samples = append(r.Samples, per[i]...)
		r.Conns += conns[i]
	}
	r.Wall = wall(r.Samples)
	return r
}

// Calls runs n calls of fn open-loop, call i at t0 + i×every each in its
// own goroutine (the owner posting once a second through a spike), and
// records them like requests named name. fn returns the HTTP status (0 if
// none came) and its error; it gets DefaultTimeout.
func Calls(ctx context.Context, clock Clock, name string, every time.Duration, n int, fn func(ctx context.Context) (int, error)) *Result {
	if clock == nil {
		clock = Real
	}
	samples := make([]Sample, n)
	t0 := clock.Now()
	starts, lag, launch, peak := schedule(ctx, clock, t0, n, every, func(i int) {
		start := clock.Now()
		cctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		status, err := fn(cctx)
		cancel()
		s := Sample{Name: name, Start: start.Sub(t0), Latency: clock.Now().Sub(start), Status: status}
		switch {
		case err != nil:
			s.Kind = kind(err)
			if s.Kind == KindOther && status >= 400 {
				s.Kind = statusKind(status)
			}
		case status >= 400:
			s.Kind = statusKind(status)
		}
		samples[i] = s
	})
	return &Result{Samples: samples, Starts: starts, Lag: lag, Rate: float64(time.Second) / float64(every), Launch: launch, Wall: wall(samples), PeakInFlight: peak}
}

func interval(rate float64) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / rate)
}

// schedule starts run(i) in a goroutine at t0 + i×every for i < n,
// records each start and its lag, and waits for every run to return. It
// returns the starts and lags (from t0), the time from t0 to the last
// start and the most runs in flight at a start.
func schedule(ctx context.Context, clock Clock, t0 time.Time, n int, every time.Duration, run func(i int)) (starts, lag []time.Duration, launch time.Duration, peak int) {
	starts, lag = make([]time.Duration, 0, n), make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	var inFlight atomic.Int64
	var last time.Time
	for i := 0; i < n && ctx.Err() == nil; i++ {
		// Multiplying from t0 (rather than adding every to the previous
		// start) keeps rounding and lateness from accumulating.
		at := t0.Add(time.Duration(i) * every)
		clock.SleepUntil(at)
		last = clock.Now()
		starts, lag = append(starts, last.Sub(t0)), append(lag, max(0, last.Sub(at)))
		wg.Add(1)
		peak = max(peak, int(inFlight.Add(1)))
		go func(i int) {
			defer wg.Done()
			defer inFlight.Add(-1)
			run(i)
		}(i)
	}
	wg.Wait()
	if last.IsZero() {
		last = t0
	}
	return starts, lag, last.Sub(t0), peak
}

func wall(samples []Sample) time.Duration {
	var w time.Duration
	for _, s := range samples {
		w = max(w, s.Start+s.Latency)
	}
	return w
}

// visitor is one visitor's connection and its requests.
type visitor struct {
	addr, host string
	timeout    time.Duration
	clock      Clock
	t0         time.Time
	conn       net.Conn
	br         *bufio.Reader
	conns      int
}

func (v *visitor) run(ctx context.Context, reqs []Request) []Sample {
	out := make([]Sample, len(reqs))
	for i, r := range reqs {
		out[i] = v.do(ctx, r)
	}
	if v.conn != nil {
		closeConn(v.conn)
	}
	if v.br != nil {
		v.br.Reset(nil)
		readers.Put(v.br)
	}
	return out
}

// readers keeps the visitors' read buffers: thousands of visitors a second
// would otherwise make the generator's garbage the machine's work.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// do sends r on the visitor's connection (dialling one when it has none or
// the last was closed) and reads the whole response.
func (v *visitor) do(ctx context.Context, r Request) Sample {
	start := v.clock.Now()
	s := Sample{Name: r.Name, Start: start.Sub(v.t0)}
	deadline := start.Add(v.timeout)
	fail := func(err error) Sample {
		s.Latency = v.clock.Now().Sub(start)
		s.Kind = kind(err)
		if s.Kind == KindOther {
			s.Err = err.Error()
		}
		if v.conn != nil {
			closeConn(v.conn)
			v.conn = nil
		}
		return s
	}
	if v.conn == nil {
		d := net.Dialer{Deadline: deadline}
		c, err := d.DialContext(ctx, "tcp", v.addr)
		if err != nil {
			return fail(err)
		}
		if v.br == nil {
			v.br = readers.Get().(*bufio.Reader)
		}
		v.br.Reset(c)
		v.conn, v.conns = c, v.conns+1
	}
	v.conn.SetDeadline(deadline)
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	if _, err := v.conn.Write(encode(method, v.host, r)); err != nil {
		return fail(err)
	}
	resp, err := http.ReadResponse(v.br, &http.Request{Method: method})
	if err != nil {
		return fail(err)
	}
	s.Status = resp.StatusCode
	s.Bytes, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	s.Latency = v.clock.Now().Sub(start)
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		s.Kind = statusKind(resp.StatusCode)
	}
	if resp.Close {
		closeConn(v.conn)
		v.conn = nil
	}
	return s
}

// closeConn closes c with a reset rather than a FIN, so this side keeps no
// TIME_WAIT: a visitor closes only after its last full response, and
// thousands of visitors a second to one server address would otherwise
// hold the loopback's ~28,000 ephemeral ports for a minute each, until
// connect() itself stalls in the kernel past every deadline (seen: 27,036
// dials out of 36,000 visitors at 3,000/s, latencies of 19 s against a
// 15 s deadline).
func closeConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func encode(method, host string, r Request) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: murlog-loadgen\r\n", method, r.Path, host)
	for k, vs := range r.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

func statusKind(code int) string { return fmt.Sprintf("status %d", code) }

// kind names a transport error.
func kind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return KindReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return KindClosed
	}
	return KindOther
}
