package theme

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mailgun/raymond/v2/ast"
)

// ParseCache keeps parsed templates between processes, by a key naming
// the source's bytes and the parser's version, so a template is
// tokenized once per change and not once per CGI request. Everything in
// it can be rebuilt: a miss, a corrupt entry or a failed write only
// costs a parse.
type ParseCache interface {
	Get(key string) []byte // nil when absent
	Put(key string, b []byte) error
}

// parserVersion names raymond's version in the key: another parser may
// build another tree from the same source.
var parserVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/mailgun/raymond/v2" {
				if m.Replace != nil {
					m = m.Replace
				}
				return m.Path + "@" + m.Version + m.Sum
			}
		}
	}
	return "raymond@unknown"
})

// parseKey is the cache key of src.
func parseKey(src string) string {
	h := sha256.New()
	io.WriteString(h, astMagic+"\x00"+parserVersion()+"\x00")
	io.WriteString(h, src)
	return hex.EncodeToString(h.Sum(nil))
}

// cachedAST parses src through the Set's parse cache, if it has one.
func (s *Set) cachedAST(src string) (*ast.Program, error) {
	c := s.o.ParseCache
	if c == nil {
		return parseAST(src)
	}
	key := parseKey(src)
	if b := c.Get(key); b != nil {
		if prog, err := decodeAST(b); err == nil {
			return prog, nil
		}
		s.log().Debug("theme: parse cache entry unreadable, parsing again", "key", key)
	}
	prog, err := parseAST(src)
	if err != nil {
		return nil, err
	}
	if err := c.Put(key, encodeAST(prog)); err != nil {
		// Debug: a CGI process would say it on every request. The cost
		// of an unwritable cache is only time.
		s.log().Debug("theme: parse cache not written", "err", err.Error())
	}
	return prog, nil
}

// DirCache is a ParseCache of files in dir (created when first written;
// murlog uses <data_dir>/cache/templates). Entries are written to a
// temporary file and renamed, so concurrent processes never read half an
// entry, and at most maxDirEntries are kept, the oldest dropped first, so
// editing a theme many times does not grow the directory without end.
func DirCache(dir string) ParseCache { return dirCache(dir) }

type dirCache string

const (
	maxDirEntries = 256
	maxEntryBytes = 4 << 20
)

func (d dirCache) Get(key string) []byte {
	if !validKey(key) {
		return nil
	}
	f, err := os.Open(filepath.Join(string(d), key))
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEntryBytes+1))
	if err != nil || len(b) > maxEntryBytes {
		return nil
	}
	return b
}

func (d dirCache) Put(key string, b []byte) error {
	if !validKey(key) {
		return errors.New("theme: bad parse cache key")
	}
	if len(b) > maxEntryBytes {
		return errors.New("theme: parse cache entry too large")
	}
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(string(d), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(string(d), key))
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return d.trim()
}

// trim drops the oldest entries beyond maxDirEntries, and temporary files
// a killed process left over a minute ago.
func (d dirCache) trim() error {
	ents, err := os.ReadDir(string(d))
	if err != nil {
		return err
	}
	type entry struct {
		name string
		mod  time.Time
	}
	var keep []entry
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(e.Name(), ".tmp-") {
			if time.Since(info.ModTime()) > time.Minute {
				os.Remove(filepath.Join(string(d), e.Name()))
			}
			continue
		}
		if validKey(e.Name()) {
			keep = append(keep, entry{e.Name(), info.ModTime()})
		}
	}
	if len(keep) <= maxDirEntries {
		return nil
	}
	slices.SortFunc(keep, func(a, b entry) int { return a.mod.Compare(b.mod) })
	for _, e := range keep[:len(keep)-maxDirEntries] {
		os.Remove(filepath.Join(string(d), e.name))
	}
	return nil
}

// validKey accepts parseKey's form only: 64 lower-case hex digits, so no
// key names a path outside the directory.
func validKey(k string) bool {
	if len(k) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
