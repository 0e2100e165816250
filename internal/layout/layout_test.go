// The tests read the module's Go files (tests left out) with go/parser,
// so they need no go tool and run in milliseconds.
package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/murlog/murlog"

// tree is the module's packages (by import path) and their imports
// inside the module, from the non-test files.
type tree struct {
	root    string
	imports map[string][]string
	files   map[string][]*ast.File
	fset    *token.FileSet
}

var (
	once   sync.Once
	parsed *tree
	perr   error
)

func load(t *testing.T) *tree {
	t.Helper()
	once.Do(func() { parsed, perr = parse(filepath.Join("..", "..")) })
	if perr != nil {
		t.Fatal(perr)
	}
	return parsed
}

func parse(root string) (*tree, error) {
	tr := &tree{root: root, imports: map[string][]string{}, files: map[string][]*ast.File{}, fset: token.NewFileSet()}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(tr.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		tr.files[pkg] = append(tr.files[pkg], f)
		if _, ok := tr.imports[pkg]; !ok {
			tr.imports[pkg] = nil
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if (p == module || strings.HasPrefix(p, module+"/")) && !slices.Contains(tr.imports[pkg], p) {
				tr.imports[pkg] = append(tr.imports[pkg], p)
			}
		}
		return nil
	})
	return tr, err
}

// reaches returns the path from pkg to target through the module's
// imports, nil when pkg does not reach it.
func (tr *tree) reaches(pkg, target string) []string {
	seen := map[string]bool{}
	var walk func(p string) []string
	walk = func(p string) []string {
		if p == target {
			return []string{p}
		}
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, q := range tr.imports[p] {
			if path := walk(q); path != nil {
				return append([]string{p}, path...)
			}
		}
		return nil
	}
	return walk(pkg)
}

func short(p string) string {
	if p == module {
		return "murlog"
	}
	return strings.TrimPrefix(p, module+"/")
}

// TestRoomsDoNotReach lists what a package must not reach: through any
// other package, or (direct) by importing it itself.
func TestRoomsDoNotReach(t *testing.T) {
	t.Parallel()
	tr := load(t)
	for _, tc := range []struct {
		pkg, must, why string
		direct         bool
	}{
		// The inbound path is its own room: federation serves documents and
		// resolves remote ones; it runs no job and records nothing social.
		{"federation", "inbox", "federation serves the endpoints; the inbox builds on it", false},
		{"federation", "social", "federation does not record what remote actors do: inbox does", false},
		{"federation", "worker", "federation runs no job: the inbox's and delivery's jobs are theirs", false},
		{"federation", "queue", "federation enqueues nothing: the inbox and delivery do", true},
		{"activitypub", "federation", "activitypub is the vocabulary both directions use", false},
		// The HTTP edge resolves callers (murlog.Caller) without the
		// auth service's package, and renderers are pure functions of
		// their page model: none of them reaches the store.
		{"httpd", "auth", "the caller is murlog.Caller; the auth service is a port (Authenticator)", false},
		{"httpd", "store", "the HTTP edge reads no database", false},
		{"theme", "httpd", "the content types are internal/contenttype's", false},
		{"theme", "store", "a theme renders a page model", false},
		{"theme", "auth", "a theme renders a page model", false},
		{"blog/meta", "store", "head metadata is a pure function of the page", false},
		{"blog/meta", "auth", "head metadata is a pure function of the page", false},
		{"blog/feed", "store", "feeds are pure functions of their entries", false},
		{"blog/feed", "auth", "feeds are pure functions of their entries", false},
	} {
		pkg, must := module+"/"+tc.pkg, module+"/"+tc.must
		if _, ok := tr.imports[pkg]; !ok {
			t.Errorf("package %s not found", tc.pkg)
			continue
		}
		if tc.direct {
			if slices.Contains(tr.imports[pkg], must) {
				t.Errorf("%s imports %s: %s", tc.pkg, tc.must, tc.why)
			}
			continue
		}
		if path := tr.reaches(pkg, must); path != nil {
			names := make([]string, len(path))
			for i, p := range path {
				names[i] = short(p)
			}
			t.Errorf("%s reaches %s (%s): %s", tc.pkg, tc.must, strings.Join(names, " → "), tc.why)
		}
	}
}

// TestInboxCallsSocial checks that the inbound path calls the social
// service itself, with no adapter in the composition root.
func TestInboxCallsSocial(t *testing.T) {
	t.Parallel()
	tr := load(t)
	if !slices.Contains(tr.imports[module+"/inbox"], module+"/social") {
		t.Errorf("inbox imports %v; want it to import social directly", tr.imports[module+"/inbox"])
	}
	if _, err := os.Stat(filepath.Join(tr.root, "app", "process.go")); err == nil {
		t.Errorf("app/process.go exists: the inbox needs no adapter of the social service")
	}
}

// TestOneActivityPubVocabulary checks that the ActivityStreams documents
// murlog writes are declared in package activitypub, beside the decoded
// Object: a struct with an "@context" JSON field anywhere else is a second
// vocabulary. blog/meta's schema.org JSON-LD is not ActivityStreams.
func TestOneActivityPubVocabulary(t *testing.T) {
	t.Parallel()
	tr := load(t)
	allowed := map[string]bool{module + "/activitypub": true, module + "/blog/meta": true}
	for pkg, files := range tr.files {
		if allowed[pkg] {
			continue
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok {
					return true
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					return true
				}
				for _, fl := range st.Fields.List {
					if fl.Tag == nil {
						continue
					}
					tag, _ := strconv.Unquote(fl.Tag.Value)
					if strings.HasPrefix(reflect.StructTag(tag).Get("json"), "@context") {
						t.Errorf("%s: type %s declares an ActivityStreams document outside activitypub",
							tr.fset.Position(ts.Pos()), ts.Name.Name)
					}
				}
				return true
			})
		}
	}
}
