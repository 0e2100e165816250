package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/store"
)

// TestCannotStartSaysTheDiskIsFull: a CGI process whose app cannot open
// the database on a full disk (SQLite cannot create the -shm file) answers
// what the running app would — 503, Retry-After, "the disk is full", a
// JSON-RPC error object on the RPC path — and any other start failure a
// 500 that sends the owner to the error log and says nothing more.
func TestCannotStartSaysTheDiskIsFull(t *testing.T) {
	t.Parallel()
	full := fmt.Errorf("sqlite: open: %w: %w", store.ErrDiskFull, errors.New("disk I/O error (4874)"))
	for _, tc := range []struct {
		err          error
		path, accept string
		status       int
		body         string
	}{
		{full, "/@alice", "text/html", http.StatusServiceUnavailable, "murlog cannot start: the disk is full; try again later"},
		{full, "/api/pub/personas/alice/posts", "", http.StatusServiceUnavailable, `"code":"unavailable"`},
		{full, httpd.RPCPath, "application/json", http.StatusServiceUnavailable, `"jsonrpc":"2.0"`},
		{errors.New("open /data/murlog.db: permission denied"), "/@alice", "text/html", http.StatusInternalServerError, "see the server error log"},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.path == httpd.RPCPath {
			r = httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(`{"jsonrpc":"2.0","method":"posts.list","id":1}`))
		}
		r.Header.Set("Accept", tc.accept)
		cannotStart(tc.err).ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != tc.status || !strings.Contains(body, tc.body) {
			t.Errorf("%s %s after %q: %d %q; want %d containing %q", r.Method, tc.path, tc.err, w.Code, body, tc.status, tc.body)
		}
		if strings.Contains(body, "4874") || strings.Contains(body, "/data/") {
			t.Errorf("%s: the answer %q tells the driver's detail; it belongs in the log", tc.path, body)
		}
		if tc.status == http.StatusServiceUnavailable {
			if ra := w.Header().Get("Retry-After"); ra == "" || ra == "0" {
				t.Errorf("%s: Retry-After %q; want seconds", tc.path, ra)
			}
		}
		if tc.path == httpd.RPCPath {
			var v struct {
				Error struct {
					Code int
					Data struct{ Code string }
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || v.Error.Data.Code != "unavailable" {
				t.Errorf("RPC answer %q (%v); want a JSON-RPC error object with data.code unavailable", body, err)
			}
		}
	}
}
