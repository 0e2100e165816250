package theme

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// openCount is an fs.FS that counts the opens of files under assets/.
type openCount struct {
	fs.FS
	mu sync.Mutex
	n  int
}

func (o *openCount) Open(name string) (fs.File, error) {
	if strings.Contains(name, "/assets/") {
		o.mu.Lock()
		o.n++
		o.mu.Unlock()
	}
	return o.FS.Open(name)
}

// Stat is not counted: loading a theme checks that its assets exist.
func (o *openCount) Stat(name string) (fs.FileInfo, error) { return fs.Stat(o.FS, name) }

func (o *openCount) ReadFile(name string) ([]byte, error) {
	f, err := o.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// TestBuiltinAssetSumsCached: a one-shot process over the built-in themes
// writes their asset hashes under the executable's key; the next reads
// them and opens no asset to give the same URLs; a damaged entry or one
// of another executable is refused and rewritten; a themes_dir folder
// keeps none.
func TestBuiltinAssetSumsCached(t *testing.T) {
	t.Parallel()
	c := &countCache{m: map[string][]byte{}}
	process := func() (Info, string, int) {
		fsys := &openCount{FS: os.DirFS("../web/themes")}
		s := Open("", fsys, Options{OneShot: true, ParseCache: c})
		in := s.Info("default")
		return in, s.AssetURL("default", "analytics.js"), fsys.n
	}
	first, firstJS, opens := process()
	if opens == 0 || len(first.Stylesheets) == 0 || firstJS == "" {
		t.Fatalf("first process: %d asset opens, %+v, %q", opens, first, firstJS)
	}
	key := executableSumsKey()
	if key == "" || !bytes.HasPrefix(c.m[key], []byte(sumsMagic)) {
		t.Fatalf("no asset hash entry under the executable's key %q", key)
	}
	puts := c.puts
	second, secondJS, opens := process()
	if opens != 0 || c.puts != puts {
		t.Errorf("second process: %d asset opens, %d puts; want none", opens, c.puts-puts)
	}
	if !reflect.DeepEqual(first, second) || firstJS != secondJS {
		t.Errorf("URLs differ through the cache:\n%+v %q\n%+v %q", first, firstJS, second, secondJS)
	}
	good := c.m[key]
	flipped := append([]byte{}, good...)
	flipped[len(flipped)-3] ^= 1
	for name, bad := range map[string][]byte{
		"a bit flipped":          flipped,
		"cut short":              good[:len(good)-4],
		"another key's entry":    sealSums(strings.Repeat("0", 64), map[string]string{"default/assets/style.css": "0123456789"}),
		"a hash of another form": sealSums(key, map[string]string{"default/assets/style.css": "XYZ"}),
	} {
		c.m[key] = bad
		in, js, opens := process()
		if opens == 0 || !reflect.DeepEqual(in, first) || js != firstJS {
			t.Errorf("%s: %d opens, %+v %q; want the assets hashed again and the same URLs", name, opens, in, js)
		}
		if !bytes.Equal(c.m[key], good) {
			t.Errorf("%s: the entry was not rewritten", name)
		}
	}
	// themes_dir: edited in place, so hashed from its bytes every time.
	c2 := &countCache{m: map[string][]byte{}}
	Open("../web/themes", nil, Options{OneShot: true, ParseCache: c2}).Info("default")
	for k, b := range c2.m {
		if bytes.HasPrefix(b, []byte(sumsMagic)) {
			t.Errorf("a themes_dir Set wrote asset hashes under %s", k)
		}
	}
}
