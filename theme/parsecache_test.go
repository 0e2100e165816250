package theme

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailgun/raymond/v2/ast"
)

// shippedTemplates returns every template of the shipped themes and of
// testdata, by path.
func shippedTemplates(t testing.TB) map[string]string {
	out := map[string]string{}
	for _, root := range []string{"../web/themes", "testdata"} {
		fs.WalkDir(os.DirFS(root), ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".hbs") || strings.Contains(path, "node_modules") {
				return nil
			}
			b, err := os.ReadFile(root + "/" + path)
			if err != nil {
				t.Fatal(err)
			}
			out[root+"/"+path] = string(b)
			return nil
		})
	}
	if len(out) < 20 {
		t.Fatalf("only %d templates found", len(out))
	}
	return out
}

// roundTrip checks that decoding the encoded tree of src gives the tree
// itself, every field and location included.
func roundTrip(t *testing.T, name, src string) {
	t.Helper()
	prog, err := parseAST(src)
	if err != nil {
		return // nothing to cache
	}
	b := encodeAST(prog)
	got, err := decodeAST(b)
	if err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	if !reflect.DeepEqual(got, prog) {
		t.Fatalf("%s: decoded tree differs\n got: %s\nwant: %s", name, ast.Print(got), ast.Print(prog))
	}
	if again := encodeAST(got); !bytes.Equal(again, b) {
		t.Fatalf("%s: encoding is not canonical", name)
	}
}

func TestASTCodecShipped(t *testing.T) {
	for name, src := range shippedTemplates(t) {
		roundTrip(t, name, src)
	}
}

// TestASTCodecEveryNode: each node kind and field the parser makes,
// including literals, hashes, sub-expressions, block params and strips.
func TestASTCodecEveryNode(t *testing.T) {
	for i, src := range []string{
		"",
		"plain",
		`{{a}}{{{b}}}{{& c}}{{~d~}}{{!x}}{{!-- y --}}`,
		`{{#each items as |it i|}}{{it}}{{else}}none{{/each}}`,
		`{{#if a}}x{{else if b}}y{{else}}z{{/if}}`,
		`{{> card name=title n=1 f=2.5 neg=-3 yes=true s="q\"t"}}`,
		`{{> (lookup . "p") a}}`,
		"  {{#with sub}}\n  {{name}}\n  {{/with}}\n",
		`{{eq (eq a 1) "x"}}{{../name}}{{@root.title}}{{this.[odd key]}}{{@index}}`,
		`{{#unless a~}} x {{~^}} y {{/unless}}`,
		`\{{escaped}} {{a}}`,
		`{{{{raw}}}} {{x}} {{{{/raw}}}}`,
		"日本語 {{名前}} 🎌",
	} {
		roundTrip(t, fmt.Sprint(i), src)
	}
}

// TestASTCodecGenerated: the compiler tests' grammar, a few thousand
// templates.
func TestASTCodecGenerated(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(9, 2026))
	g := &gen{next: rnd.IntN}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		roundTrip(t, fmt.Sprint("generated ", i), g.body(0))
	}
}

// TestASTDecodeCorrupt: every truncation and many byte flips of a real
// entry are refused or decode to some tree, never a panic; a wrong
// magic is refused.
func TestASTDecodeCorrupt(t *testing.T) {
	src := shippedTemplates(t)["../web/themes/default/templates/post.hbs"]
	prog, err := parseAST(src)
	if err != nil {
		t.Fatal(err)
	}
	b := encodeAST(prog)
	for n := range len(b) {
		if _, err := decodeAST(b[:n]); err == nil {
			t.Fatalf("a %d-byte prefix of a %d-byte entry decoded", n, len(b))
		}
	}
	if _, err := decodeAST(append(append([]byte{}, b...), 0)); err == nil {
		t.Error("an entry with a trailing byte decoded")
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		c := append([]byte{}, b...)
		c[len(astMagic)+rnd.IntN(len(c)-len(astMagic))] = byte(rnd.IntN(256))
		decodeAST(c)
	}
	bad := append([]byte{}, b...)
	bad[0] ^= 1
	if _, err := decodeAST(bad); err == nil {
		t.Error("an entry with a wrong magic decoded")
	}
	// A count that claims more elements than bytes left allocates nothing.
	huge := append([]byte(astMagic), byte(ast.NodeProgram), 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F)
	if _, err := decodeAST(huge); err == nil {
		t.Error("a lying count decoded")
	}
	deep := []byte(astMagic)
	for range maxASTDepth + 10 {
		deep = append(deep, byte(ast.NodeProgram), 0, 0, 0, 1)
	}
	if _, err := decodeAST(deep); err == nil {
		t.Error("a tree deeper than maxASTDepth decoded")
	}
}

// FuzzASTDecode: any bytes decode or fail without panicking, and what
// decodes encodes back to the same bytes.
func FuzzASTDecode(f *testing.F) {
	for _, src := range []string{"", "a{{b}}", `{{#each x as |y|}}{{> p n=1.5}}{{/each}}`} {
		prog, _ := parseAST(src)
		f.Add(encodeAST(prog))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		prog, err := decodeAST(b)
		if err != nil {
			return
		}
		if again := encodeAST(prog); !bytes.Equal(again, b) {
			t.Fatalf("decoded entry re-encodes differently:\n%x\n%x", b, again)
		}
	})
}

// countCache is a ParseCache in memory that counts its calls.
type countCache struct {
	m          map[string][]byte
	gets, hits int
	puts       int
}

func (c *countCache) Get(k string) []byte {
	c.gets++
	if b, ok := c.m[k]; ok {
		c.hits++
		return b
	}
	return nil
}

func (c *countCache) Put(k string, b []byte) error {
	c.puts++
	c.m[k] = b
	return nil
}

// TestSetUsesParseCache: a second one-shot process decodes what the
// first parsed, renders the same bytes, and a corrupt entry is parsed
// again and rewritten.
func TestSetUsesParseCache(t *testing.T) {
	fsys := os.DirFS("../web/themes")
	ctx := map[string]any{"site": map[string]any{"name": "n"}, "lang": "ja"}
	plain, _ := NewSet(fsys, Options{OneShot: true}).Render("default", "post", ctx)
	c := &countCache{m: map[string][]byte{}}
	first, _ := NewSet(fsys, Options{OneShot: true, ParseCache: c}).Render("default", "post", ctx)
	if c.puts == 0 || c.hits != 0 {
		t.Fatalf("first process: %d puts, %d hits; want puts and no hits", c.puts, c.hits)
	}
	puts := c.puts
	// One entry per file, and the page's bundle of them (bundle.go), which
	// is all the second process reads.
	second, _ := NewSet(fsys, Options{OneShot: true, ParseCache: c}).Render("default", "post", ctx)
	if c.hits != 1 || c.gets != puts+1 || c.puts != puts {
		t.Fatalf("second process: %d gets, %d hits, %d puts; want 1 get and hit (the bundle) and no new puts", c.gets-puts, c.hits, c.puts-puts)
	}
	if !bytes.Equal(first, plain) || !bytes.Equal(second, plain) {
		t.Fatal("a page rendered through the parse cache differs from the parsed one")
	}
	for k := range c.m {
		c.m[k] = []byte("garbage")
	}
	third, _ := NewSet(fsys, Options{OneShot: true, ParseCache: c}).Render("default", "post", ctx)
	if !bytes.Equal(third, plain) || c.puts != 2*puts {
		t.Fatalf("corrupt entries: %d puts (want %d), same page %v", c.puts, 2*puts, bytes.Equal(third, plain))
	}
}

func TestDirCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "templates")
	c := DirCache(dir)
	key := parseKey("{{a}}")
	if c.Get(key) != nil {
		t.Fatal("Get on a missing directory returned an entry")
	}
	if err := c.Put(key, []byte("entry")); err != nil {
		t.Fatal(err)
	}
	if got := c.Get(key); string(got) != "entry" {
		t.Fatalf("Get = %q", got)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v, %v; want 0700", info.Mode().Perm(), err)
	}
	for _, k := range []string{"", "../x", strings.Repeat("A", 64), strings.Repeat("a", 63), "/etc/passwd"} {
		if c.Get(k) != nil || c.Put(k, []byte("x")) == nil {
			t.Errorf("key %q accepted", k)
		}
	}
	if err := c.Put(key, make([]byte, maxEntryBytes+1)); err == nil {
		t.Error("an over-large entry was written")
	}
	// A temporary file a killed process left is removed once old.
	stale := filepath.Join(dir, ".tmp-stale")
	os.WriteFile(stale, []byte("x"), 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	// Beyond maxDirEntries the oldest go first.
	base := time.Now().Add(-24 * time.Hour)
	os.Chtimes(filepath.Join(dir, key), base, base)
	for i := range maxDirEntries + 5 {
		if err := c.Put(parseKey(fmt.Sprint(i)), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != maxDirEntries {
		t.Errorf("%d entries kept; want %d", len(ents), maxDirEntries)
	}
	if c.Get(key) != nil {
		t.Error("the oldest entry was kept")
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temporary file was kept")
	}
	// An unwritable place is an error, not a panic; the Set still renders.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if err := DirCache(filepath.Join(file, "sub")).Put(key, []byte("x")); err == nil {
		t.Error("Put under a file succeeded")
	}
	if _, ok := NewSet(os.DirFS("../web/themes"), Options{OneShot: true, ParseCache: DirCache(filepath.Join(file, "sub"))}).
		Render("default", "post", map[string]any{}); !ok {
		t.Error("an unwritable parse cache made the render fall back")
	}
}

// TestParseCacheRefusesWrongEntries: an entry file copied over another
// (two entries swapped) or with a bit flipped in its tree would decode to
// a well-formed tree of the wrong text; each is refused, the template is
// parsed again, the page renders as it should, and the entry is
// rewritten.
func TestParseCacheRefusesWrongEntries(t *testing.T) {
	t.Parallel()
	fsys := os.DirFS("../web/themes")
	ctx := map[string]any{"site": map[string]any{"name": "n"}, "lang": "ja", "post": map[string]any{"title": "T", "content_html": "<p>x</p>"}}
	plain, _ := NewSet(fsys, Options{OneShot: true}).Render("default", "post", ctx)
	dir := t.TempDir()
	render := func() []byte {
		b, ok := NewSet(fsys, Options{OneShot: true, ParseCache: DirCache(dir)}).Render("default", "post", ctx)
		if !ok {
			t.Fatal("Render fell back")
		}
		return b
	}
	render()
	// The page's bundle would answer before any file's entry: these
	// cases are the per-file entries' (TestPageBundleRefusesWrongEntries
	// has the bundle's), so every render here starts without it.
	dropBundles := func() {
		all, _ := os.ReadDir(dir)
		for _, e := range all {
			if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); bytes.HasPrefix(b, []byte(bundleMagic)) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	dropBundles()
	ents, _ := os.ReadDir(dir)
	if len(ents) < 2 {
		t.Fatalf("%d parse cache entries; want the post page's templates", len(ents))
	}
	entry := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The two largest entries: their trees surely differ.
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return len(entry(b.Name())) - len(entry(a.Name())) })
	a, b := ents[0].Name(), ents[1].Name()
	ea, eb := entry(a), entry(b)
	os.WriteFile(filepath.Join(dir, a), eb, 0o600)
	os.WriteFile(filepath.Join(dir, b), ea, 0o600)
	if got := render(); !bytes.Equal(got, plain) {
		t.Errorf("with two entries swapped the page differs:\n%s", got)
	}
	dropBundles()
	for name, want := range map[string][]byte{a: ea, b: eb} {
		if !bytes.Equal(entry(name), want) {
			t.Errorf("the swapped entry %s was not rewritten", name)
		}
	}
	// A letter of the page's text in the largest entry, its case bit
	// flipped: still a well-formed tree, of other text.
	i := entryHead + regexp.MustCompile(`<[a-z]`).FindIndex(ea[entryHead:])[0]
	flipped := append([]byte{}, ea...)
	flipped[i+1] ^= 0x20
	if _, err := decodeAST(flipped[entryHead:]); err != nil {
		t.Fatalf("the flipped tree does not decode (%v): the test would show nothing", err)
	}
	os.WriteFile(filepath.Join(dir, a), flipped, 0o600)
	if got := render(); !bytes.Equal(got, plain) {
		t.Errorf("with a bit flipped in an entry the page differs:\n%s", got)
	}
	if !bytes.Equal(entry(a), ea) {
		t.Errorf("the flipped entry %s was not rewritten", a)
	}
	if _, err := openEntry(b, ea); err != errEntryKey {
		t.Errorf("openEntry under another key: %v; want errEntryKey", err)
	}
	if _, err := openEntry(a, flipped); err != errEntrySum {
		t.Errorf("openEntry of a flipped entry: %v; want errEntrySum", err)
	}
	if _, err := openEntry(a, ea[:entryHead-1]); err == nil {
		t.Error("openEntry of a cut header decoded")
	}
}

// TestPageBundleRefusesWrongEntries: a page's bundle with a bit flipped
// in one of its trees, cut short, or copied under another page's key is
// refused; the page renders as it should from the per-file entries and
// the bundle is rewritten.
func TestPageBundleRefusesWrongEntries(t *testing.T) {
	t.Parallel()
	fsys := os.DirFS("../web/themes")
	ctx := map[string]any{"site": map[string]any{"name": "n"}, "lang": "ja", "post": map[string]any{"title": "T", "content_html": "<p>x</p>"}}
	c := &countCache{m: map[string][]byte{}}
	render := func(tmpl string) []byte {
		b, ok := NewSet(fsys, Options{OneShot: true, ParseCache: c}).Render("default", tmpl, ctx)
		if !ok {
			t.Fatal("Render fell back")
		}
		return b
	}
	plain, _ := NewSet(fsys, Options{OneShot: true}).Render("default", "post", ctx)
	render("post")
	render("site")
	bundles := map[string][]byte{}
	for k, b := range c.m {
		if bytes.HasPrefix(b, []byte(bundleMagic)) {
			bundles[k] = b
		}
	}
	if len(bundles) != 2 {
		t.Fatalf("%d page bundles for two pages; want 2", len(bundles))
	}
	var post, home string
	for k := range bundles {
		if _, err := openBundle(k, bundles[k], 0); err == nil {
			t.Fatal("a bundle decoded as one of no files")
		}
	}
	files, err := func() ([]bundleFile, error) {
		s := NewSet(fsys, Options{})
		th, _ := s.use("default")
		return s.pageFiles(th, "post", th.find("templates", "post"))
	}()
	if err != nil {
		t.Fatal(err)
	}
	post = bundleKey(files)
	for k := range bundles {
		if k != post {
			home = k
		}
	}
	if bundles[post] == nil || home == "" {
		t.Fatal("the post page's bundle is not under the key of its files")
	}
	i := len(bundleMagic) + sha256.Size + 4 + regexp.MustCompile(`<[a-z]`).FindIndex(bundles[post][len(bundleMagic)+sha256.Size+4:])[0]
	flipped := append([]byte{}, bundles[post]...)
	flipped[i+1] ^= 0x20
	for name, bad := range map[string][]byte{
		"a bit flipped":           flipped,
		"cut short":               bundles[post][:len(bundles[post])-7],
		"another page's bundle":   bundles[home],
		"a file's entry, renamed": c.m[parseKey(files[0].src)],
	} {
		c.m[post] = bad
		puts := c.puts
		if got := render("post"); !bytes.Equal(got, plain) {
			t.Errorf("%s: the page differs:\n%s", name, got)
		}
		if !bytes.Equal(c.m[post], bundles[post]) || c.puts != puts+1 {
			t.Errorf("%s: the bundle was not rewritten (%d puts)", name, c.puts-puts)
		}
	}
	if _, err := openBundle(post, bundles[home], len(files)); err != errEntryKey {
		t.Errorf("openBundle under another key: %v; want errEntryKey", err)
	}
	if _, err := openBundle(post, flipped, len(files)); err != errEntrySum {
		t.Errorf("openBundle of a flipped bundle: %v; want errEntrySum", err)
	}
}
