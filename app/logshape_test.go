package app

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog/config"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/store"
)

// TestOneLogShape: request lines and job lines, as serve writes them to
// one stderr, are one JSON shape — slog's time, level and msg at the top —
// and job lines keep the seed's fields as attributes.
func TestOneLogShape(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "data"), 0o700)
	ini := filepath.Join(dir, config.FileName)
	os.WriteFile(ini, []byte("data_dir = ./data\nmedia_path = ./media\n"), 0o600)
	stderr := &lockedBuffer{}
	a, err := New(context.Background(), Options{ConfigPath: ini, Getenv: func(string) string { return "" },
		Logger: NewLogger(stderr, "info"), Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Registry().Handle("test.shape", func(context.Context, *queue.Job) error { return nil }, queue.Policy{})
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	a.ServeHTTP(httptest.NewRecorder(), req)
	j := queue.NewJob("test.shape", []byte(`{}`))
	j.Headers = map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01"}
	if err := a.Store().Update(context.Background(), func(tx store.Tx) error { return tx.Jobs().Enqueue(j) }); err != nil {
		t.Fatal(err)
	}
	if n, err := a.NewWorker("murlog-serve").RunBatch(context.Background(), 10, 5*time.Second); err != nil || n != 1 {
		t.Fatalf("RunBatch = %d, %v; want the job run", n, err)
	}

	var request, job map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		switch m["msg"] {
		case "request":
			request = m
		case "job.completed":
			job = m
		}
	}
	if request == nil || job == nil {
		t.Fatalf("want a request line and a job.completed line; got:\n%s", stderr)
	}
	for _, k := range []string{"time", "level", "msg"} {
		for what, m := range map[string]map[string]any{"request": request, "job": job} {
			if _, ok := m[k].(string); !ok {
				t.Errorf("%s line has %s = %v; want a string (line %v)", what, k, m[k], m)
			}
		}
	}
	if _, ok := job["ts"]; ok {
		t.Errorf("job line has \"ts\"; want time, as request lines: %v", job)
	}
	if request["level"] != "INFO" || job["level"] != "INFO" {
		t.Errorf("levels: request %v, job %v; want both INFO", request["level"], job["level"])
	}
	for what, m := range map[string]map[string]any{"request": request, "job": job} {
		if ts, _ := m["time"].(string); ts == "" || !validTime(ts) {
			t.Errorf("%s line time = %q; want RFC 3339", what, ts)
		}
	}
	if request["svc"] != "murlog-serve" || request["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("request line svc = %v, trace_id = %v; want murlog-serve and the incoming trace", request["svc"], request["trace_id"])
	}
	want := map[string]any{"event": "job.completed", "svc": "murlog-serve", "queue.provider": "sqlite",
		"queue.topic": "test.shape", "job.id": j.ID, "job.attempt": float64(1), "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736"}
	for k, v := range want {
		if job[k] != v {
			t.Errorf("job line %s = %v; want %v (line %v)", k, job[k], v, job)
		}
	}
	if _, ok := job["duration_ms"].(float64); !ok {
		t.Errorf("job line lacks a numeric duration_ms: %v", job)
	}
	// The seed's attributes come after time, level and msg, as in
	// request lines: one parser, one column layout.
	keys := order(t, stderr.String(), "job.completed")
	if !slices.Equal(keys[:3], []string{"time", "level", "msg"}) {
		t.Errorf("job line keys start %v; want time, level, msg", keys[:3])
	}
	if keys := order(t, stderr.String(), `"request"`); !slices.Equal(keys[:3], []string{"time", "level", "msg"}) {
		t.Errorf("request line keys start %v; want time, level, msg", keys[:3])
	}
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// order returns the top-level keys, in order, of the first log line
// containing mark.
func order(t *testing.T, logs, mark string) []string {
	t.Helper()
	for _, l := range strings.Split(logs, "\n") {
		if !strings.Contains(l, mark) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.Token() // {
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		return keys
	}
	t.Fatalf("no log line with %s", mark)
	return nil
}

// lockedBuffer is stderr shared by the request logger and the worker.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
