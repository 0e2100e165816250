package blog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/store"
)

// TestUnavailablePageIsThemed: a page a browser asks for that fails as
// unavailable (the store's full disk, as store/sqlite gives it) is the
// theme's error page in the persona's theme, 503 with Retry-After; a
// client asking for JSON gets the JSON error; neither says "internal".
func TestUnavailablePageIsThemed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.config(func(c *murlog.PubConfig) { c.DesignTheme = "newspaper" })
	full := fmt.Errorf("%w: %w", store.ErrDiskFull, errors.New("database or disk is full (13)"))
	for _, err := range []error{full, &murlog.Error{Code: murlog.EUnavailable, Message: "database is busy, try again", RetryAfter: 1e9}} {
		req := httptest.NewRequest(http.MethodGet, "/@alice", nil)
		req.Header.Set("Accept", "text/html,application/xhtml+xml")
		rec := httptest.NewRecorder()
		blog.Fail(e.h, rec, req, err)
		body := rec.Body.String()
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
			!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(body, "theme-newspaper") ||
			!strings.Contains(body, "Temporarily unavailable") || strings.Contains(body, "internal") {
			t.Errorf("HTML page failing with %v = %d Retry-After %q %s; want the newspaper theme's 503 page with Retry-After",
				err, rec.Code, rec.Header().Get("Retry-After"), body)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/api/pub/personas/alice/posts", nil)
	rec := httptest.NewRecorder()
	blog.Fail(e.h, rec, req, full)
	var v struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &v); rec.Code != 503 || rec.Header().Get("Retry-After") != "60" || v.Error.Code != "unavailable" || v.Error.Message != "the disk is full" {
		t.Errorf("API call failing on a full disk = %d Retry-After %q %s; want 503 unavailable \"the disk is full\", Retry-After 60",
			rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	// Other errors keep their answers.
	req = httptest.NewRequest(http.MethodGet, "/@alice", nil)
	req.Header.Set("Accept", "text/html")
	rec = httptest.NewRecorder()
	blog.Fail(e.h, rec, req, murlog.Internal(errors.New("boom")))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "boom") {
		t.Errorf("internal error = %d %s; want a 500 without the cause", rec.Code, rec.Body)
	}
}
