package theme

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
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

// parseKey is the cache key of src: the SHA-256 of the source and the
// parser's version, in hex.
func parseKey(src string) string {
	h := sha256.New()
	io.WriteString(h, astMagic+"\x00"+parserVersion()+"\x00")
	io.WriteString(h, src)
	return hex.EncodeToString(h.Sum(nil))
}

// A parse cache entry is entryMagic, the key it was written under (the
// 32 bytes of the hash), the CRC-32 of the tree's encoding, then that
// encoding. The store names entries by key, but a file copied or renamed
// over another, or a bit flipped on the disk, would otherwise decode to a
// well-formed tree of some other template, and the page would render
// wrong without a word: openEntry refuses an entry whose key is not the
// one asked for or whose checksum fails, and the template is parsed again
// and its entry rewritten. The checksum is for damage, not for an
// attacker (who could write the whole file): CRC-32 (IEEE) catches every
// burst of up to 32 flipped bits and costs 2–3 µs for a post page's nine
// entries (decoding them takes 0.3–0.5 ms) after a table built once per
// process (about 15 µs). SHA-256 took 50–75 µs for the same entries, and
// CRC-32C's table 150 µs at every CGI start.
const entryMagic = "mrlgpc1\n"

const entryHead = len(entryMagic) + sha256.Size + 4

// sealEntry returns the entry of prog under key.
func sealEntry(key string, prog *ast.Program) []byte {
	body := encodeAST(prog)
	b := make([]byte, 0, entryHead+len(body))
	b = append(b, entryMagic...)
	b, _ = hex.AppendDecode(b, []byte(key))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(body))
	return append(b, body...)
}

// openEntry decodes the entry b read under key.
func openEntry(key string, b []byte) (*ast.Program, error) {
	if len(b) < entryHead || string(b[:len(entryMagic)]) != entryMagic {
		return nil, errAST
	}
	var written [2 * sha256.Size]byte
	hex.Encode(written[:], b[len(entryMagic):len(entryMagic)+sha256.Size])
	if string(written[:]) != key {
		return nil, errEntryKey
	}
	body := b[entryHead:]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(b[entryHead-4:entryHead]) {
		return nil, errEntrySum
	}
	return decodeAST(body)
}

var (
	errEntryKey = errors.New("theme: parse cache entry written under another key")
	errEntrySum = errors.New("theme: parse cache entry fails its checksum")
)

// cachedAST parses src through the Set's parse cache, if it has one.
func (s *Set) cachedAST(src string) (*ast.Program, error) {
	c := s.o.ParseCache
	if c == nil {
		return parseAST(src)
	}
	key := parseKey(src)
	if b := c.Get(key); b != nil {
		prog, err := openEntry(key, b)
		if err == nil {
			return prog, nil
		}
		s.log().Debug("theme: parse cache entry refused, parsing again", "key", key, "err", err.Error())
	}
	prog, err := parseAST(src)
	if err != nil {
		return nil, err
	}
	if err := c.Put(key, sealEntry(key, prog)); err != nil {
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
	// One read of the size the file has (entries are renamed into place
	// whole, so it does not change), not ReadAll's growing buffers.
	info, err := f.Stat()
	if err != nil || info.Size() > maxEntryBytes {
		return nil
	}
	b := make([]byte, info.Size())
	if _, err := io.ReadFull(f, b); err != nil {
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
