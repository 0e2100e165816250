package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// TestNotSetUpThenRunning: an installed site (murlog.ini written, setup
// step 2 not done) builds nothing that needs the domain — no running
// site, not even the blog's themes — and its routes answer the guard;
// once another process completes setup, the next request builds the
// running site whole, every service set, and the routes answer it.
func TestNotSetUpThenRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	ini := filepath.Join(dir, "murlog.ini")
	if err := os.WriteFile(ini, []byte("data_dir = ./data\nmedia_path = ./media\nscheme = http\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "MURLOG_SEARCH_BUDGET_MS" {
			return "120"
		}
		return ""
	}
	a, err := New(ctx, Options{ConfigPath: ini, Getenv: getenv,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.inst.Load() == nil {
		t.Fatal("murlog.ini exists but no installed site")
	}
	if a.running.Load() != nil {
		t.Error("a running site before setup step 2")
	}
	if a.themes != nil {
		t.Error("the blog's themes were opened before setup is complete")
	}
	get := func(path, accept string) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Accept", accept)
		a.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, path := range []string{"/@alice", "/my/", "/metrics", "/.well-known/webfinger?resource=acct:alice@x", "/api/pub/personas/alice/posts"} {
		if got := get(path, "application/json"); got != http.StatusServiceUnavailable {
			t.Errorf("GET %s before setup = %d; want the guard's 503", path, got)
		}
	}

	// Another process completes setup.
	if err := a.Store().Update(ctx, func(tx store.Tx) error {
		if err := tx.Settings().Set(murlog.SettingDomain, "blog.example"); err != nil {
			return err
		}
		return tx.Settings().Set(murlog.SettingSetupComplete, "1")
	}); err != nil {
		t.Fatal(err)
	}
	if got := get("/@alice", "application/activity+json"); got != http.StatusNotFound {
		t.Errorf("GET /@alice (no such persona) after setup = %d; want 404 from federation", got)
	}
	rt := a.running.Load()
	if rt == nil {
		t.Fatal("no running site after setup completed")
	}
	if rt.installed != a.inst.Load() {
		t.Error("the running site is not built on the installed one")
	}
	if rt.site.Domain != "blog.example" {
		t.Errorf("running site domain = %q; want blog.example", rt.site.Domain)
	}
	if rt.blogLoader.SearchBudget != 120*time.Millisecond {
		t.Errorf("the blog's search budget is %s; want search_budget_ms's 120 ms", rt.blogLoader.SearchBudget)
	}
	v := reflect.ValueOf(rt).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() != reflect.Struct && f.IsZero() {
			t.Errorf("running.%s is not set: the running site is built whole", v.Type().Field(i).Name)
		}
	}
}
