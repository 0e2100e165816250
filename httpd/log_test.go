package httpd

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestMillisIsTheFloatItReplaces: Millis prints exactly what the float
// it replaced printed through encoding/json, for every microsecond up to
// a second and for random durations up to days, negative ones too.
func TestMillisIsTheFloatItReplaces(t *testing.T) {
	check := func(us int64) {
		t.Helper()
		want, _ := json.Marshal(float64(us) / 1000)
		if got := Millis(time.Duration(us) * time.Microsecond); string(got) != string(want) {
			t.Fatalf("%d µs: Millis %q, the float %q", us, got, want)
		}
	}
	for us := int64(0); us <= 1_000_000; us++ {
		check(us)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		us := rng.Int64N(int64(72 * time.Hour / time.Microsecond))
		check(us)
		check(-us)
	}
	// Below a microsecond is zero, as Microseconds() made it.
	if got := Millis(999 * time.Nanosecond); got != "0" {
		t.Errorf("999 ns: %q, want 0", got)
	}
}

// TestRequestLineHasANumericDuration: the request line's duration_ms is
// a JSON number, not a string, beside the other fields.
func TestRequestLineHasANumericDuration(t *testing.T) {
	var buf bytes.Buffer
	h := Log(slog.New(slog.NewJSONHandler(&buf, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello"))
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x?secret=1", nil))
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	if _, ok := line["duration_ms"].(float64); !ok {
		t.Errorf("duration_ms is %T (%v), want a number: %s", line["duration_ms"], line["duration_ms"], buf.Bytes())
	}
	if line["path"] != "/x" || line["status"] != float64(200) || line["bytes"] != float64(5) || line["method"] != "GET" {
		t.Errorf("line: %s", buf.Bytes())
	}
}

// TestRequestLineFollowsTheLevel: above info, no request line is written.
func TestRequestLineFollowsTheLevel(t *testing.T) {
	var buf bytes.Buffer
	h := Log(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
	if buf.Len() != 0 {
		t.Errorf("a request line at level warn: %s", buf.Bytes())
	}
}
