package httpd

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/murlog/murlog/trace"
)

// statusWriter remembers the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Millis is d in milliseconds to the microsecond, as a JSON number: the
// figure float64(d.Microseconds())/1000 prints (0.123, 1.5, 12), written
// with integer arithmetic. slog writes a float attribute through
// encoding/json's float formatting, whose large stack frame grew each
// new connection's goroutine stack: under a crowd of new connections the
// request line's duration cost murlog serve a twentieth of its CPU.
func Millis(d time.Duration) json.Number {
	us := d.Microseconds()
	var b [24]byte
	out := b[:0]
	if us < 0 {
		out = append(out, '-')
		us = -us
	}
	out = strconv.AppendInt(out, us/1000, 10)
	if frac := us % 1000; frac != 0 {
		out = append(out, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
		out = bytes.TrimRight(out, "0")
	}
	return json.Number(out)
}

// Log writes one line per request to log: msg "request" with method,
// path, status, duration_ms, bytes and trace_id, after whatever log
// carries (the app adds svc). With app.NewLogger that is the JSON shape
// job lines share: "time", "level", "msg", then the attributes. It logs the path only: query strings, headers,
// cookies and bodies may carry secrets and are never logged. A panic in
// next is answered with 500 and logged with its value, and the process
// keeps serving.
//
// Each request gets a trace context: a child of the caller's traceparent
// header when it sent a valid one, else a new trace. Jobs the request
// enqueues carry it, so their log lines share the request's trace_id.
func Log(log *slog.Logger, next http.Handler) http.Handler { return LogWith(log, nil, next) }

// LogWith is Log with, when not nil, adding to each request's context
// too, in the same copy of the request (a copy is an allocation of every
// request).
func LogWith(log *slog.Logger, with func(context.Context) context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		tc := trace.New()
		if in, ok := trace.Parse(r.Header.Get(trace.Header)); ok {
			tc = in.Child()
		}
		ctx := trace.With(r.Context(), tc)
		if with != nil {
			ctx = with(ctx)
		}
		r = r.WithContext(ctx)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p)
				if sw.status == 0 {
					http.Error(sw, "internal error", http.StatusInternalServerError)
				}
			}
			if sw.status == 0 {
				sw.status = http.StatusOK
			}
			// A record made here, typed attributes: no conversion of each
			// argument, and no runtime.Callers for a source line that is
			// never written (an eighth of the line's cost under a crowd).
			if h := log.Handler(); h.Enabled(r.Context(), slog.LevelInfo) {
				rec := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
					slog.Int("status", sw.status), slog.Any("duration_ms", Millis(time.Since(start))),
					slog.Int64("bytes", sw.bytes), slog.String("trace_id", tc.TraceID))
				h.Handle(r.Context(), rec)
			}
		}()
		next.ServeHTTP(sw, r)
	})
}
