package app

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestQuietRelease walks quietRelease through ticks: the heap is handed
// back at the first tick after a busy one that finds no new request, once
// per busy spell, and never while requests keep starting.
func TestQuietRelease(t *testing.T) {
	t.Parallel()
	q := &quietRelease{next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}
	for _, step := range []struct {
		name     string
		requests int
		want     bool
	}{
		{"idle since start", 0, false},
		{"a busy tick", 3, false},
		{"still busy", 1, false},
		{"the first quiet tick", 0, true},
		{"the next quiet tick", 0, false},
		{"busy again", 2, false},
		{"quiet again", 0, true},
	} {
		for range step.requests {
			q.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		}
		if got := q.quiet(); got != step.want {
			t.Errorf("%s (%d requests since the tick before): quiet() = %v; want %v", step.name, step.requests, got, step.want)
		}
	}
}
