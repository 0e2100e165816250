package app

import (
	"context"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPostgresIsNotInThisBuild: db_driver = "postgres" (in the ini or the
// environment) stops murlog with a message saying so, before anything is
// opened or written.
func TestPostgresIsNotInThisBuild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ini string
		env       map[string]string
	}{
		{"ini", "db_driver = \"postgres\"\ndata_dir = ./data\n", nil},
		{"environment", "data_dir = ./data\n", map[string]string{"MURLOG_DB_DRIVER": "postgres"}},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		ini := filepath.Join(dir, "murlog.ini")
		if err := os.WriteFile(ini, []byte(tc.ini), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := New(context.Background(), Options{ConfigPath: ini, Getenv: func(k string) string { return tc.env[k] }})
		if err == nil || !strings.Contains(err.Error(), `db_driver = "postgres" is not available in this build yet`) {
			t.Errorf("%s: New with db_driver postgres = %v; want the not-available-yet error", tc.name, err)
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "data")); len(ents) > 0 {
			t.Errorf("%s: the refused start left %d files in data_dir", tc.name, len(ents))
		}
	}
}

// TestOnlyTheEngineNamesAStoreAdapter keeps the composition root's rule:
// outside the adapters themselves and tests, only app/engine.go imports a
// store adapter; cmd/murlog in particular names none.
func TestOnlyTheEngineNamesAStoreAdapter(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const adapters = "github.com/murlog/murlog/store/"
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// The adapters may import each other's helpers; internal/ holds
			// test harnesses.
			if strings.HasPrefix(rel, ".") && rel != "." || rel == "store" || strings.HasPrefix(rel, "internal") || rel == "node_modules" {
				if rel == "store" {
					return nil // store itself is the port; its subfolders are adapters
				}
				return filepath.SkipDir
			}
			if strings.HasPrefix(rel, "store"+string(filepath.Separator)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, adapters) && rel != filepath.Join("app", "engine.go") {
				t.Errorf("%s imports the store adapter %s; only app/engine.go may", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files under %s; the walk is broken", checked, root)
	}
}
