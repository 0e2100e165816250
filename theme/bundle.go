package theme

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strconv"

	"github.com/mailgun/raymond/v2/ast"
)

// A page bundle is one parse cache entry holding the trees of every file
// a page template reaches (the template and its partials, in the order
// page walks them), so that a CGI process, which builds one page and
// keeps nothing, reads one cache file instead of one per file: nine
// opens, reads and closes were a fifth of its template work. The key
// names every file's path and bytes and the parser's version, like
// parseKey; the entry is bundleMagic, the key's 32 bytes, the CRC-32 of
// the rest, then per file its encoded tree's length (uvarint) and the
// tree. A miss parses the files through the per-file cache and writes
// the bundle.
const bundleMagic = "mrlgpb1\n"

// bundleFile is one file of a page bundle.
type bundleFile struct {
	file string // path in the Set's fsys
	src  string
	refs []string
}

// prefill puts the parsed files page needs for tmpl (found in provider p)
// into cache, from the page's bundle when the parse cache has it. s.mu is
// held. Files already in cache are left as they are.
func (s *Set) prefill(t *theme, tmpl string, p *theme, cache map[string]*parsed) error {
	files, err := s.pageFiles(t, tmpl, p)
	if err != nil || len(files) == 0 {
		return nil // page reports the error itself, on its own path
	}
	key := bundleKey(files)
	if b := s.o.ParseCache.Get(key); b != nil {
		progs, err := openBundle(key, b, len(files))
		if err == nil {
			for i, f := range files {
				if _, ok := cache[f.file]; !ok {
					cache[f.file] = &parsed{src: f.src, prog: progs[i], refs: f.refs}
				}
			}
			return nil
		}
		s.log().Debug("theme: page bundle refused, parsing again", "key", key, "err", err.Error())
	}
	progs := make([]*ast.Program, len(files))
	for i, f := range files {
		prog, err := s.cachedAST(f.src)
		if err != nil {
			return nil // page reports the parse error with the file's name
		}
		progs[i] = prog
		if _, ok := cache[f.file]; !ok {
			cache[f.file] = &parsed{src: f.src, prog: prog, refs: f.refs}
		}
	}
	if err := s.o.ParseCache.Put(key, sealBundle(key, progs)); err != nil {
		s.log().Debug("theme: page bundle not written", "err", err.Error())
	}
	return nil
}

// pageFiles lists the files page reaches from tmpl, in page's order,
// reading their sources (not parsing them).
func (s *Set) pageFiles(t *theme, tmpl string, p *theme) ([]bundleFile, error) {
	read := func(file string) (bundleFile, error) {
		b, err := fs.ReadFile(s.fsys, file)
		if err != nil {
			return bundleFile{}, err
		}
		src := string(b)
		return bundleFile{file: file, src: src, refs: partialRefs(src)}, nil
	}
	top, err := read(templateFile(p.name, tmpl))
	if err != nil {
		return nil, err
	}
	files := []bundleFile{top}
	done := map[string]bool{}
	queue := append([]string(nil), top.refs...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == "(" {
			queue = append(queue, t.partialNames()...)
			continue
		}
		if done[n] {
			continue
		}
		done[n] = true
		pp := t.find("partials", n)
		if pp == nil {
			return nil, fmt.Errorf("no partial %q", n)
		}
		f, err := read(partialFile(pp.name, n))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		queue = append(queue, f.refs...)
	}
	return files, nil
}

// bundleKey names files' paths and bytes and the parser's version.
func bundleKey(files []bundleFile) string {
	h := sha256.New()
	io.WriteString(h, bundleMagic+astMagic+"\x00"+parserVersion()+"\x00")
	for _, f := range files {
		io.WriteString(h, f.file+"\x00"+strconv.Itoa(len(f.src))+"\x00")
		io.WriteString(h, f.src)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sealBundle(key string, progs []*ast.Program) []byte {
	var body []byte
	for _, prog := range progs {
		enc := encodeAST(prog)
		body = binary.AppendUvarint(body, uint64(len(enc)))
		body = append(body, enc...)
	}
	b := make([]byte, 0, len(bundleMagic)+sha256.Size+4+len(body))
	b = append(b, bundleMagic...)
	b, _ = hex.AppendDecode(b, []byte(key))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(body))
	return append(b, body...)
}

// openBundle decodes the n trees of the bundle b read under key, refusing
// an entry written under another key, damaged, or of another length.
func openBundle(key string, b []byte, n int) ([]*ast.Program, error) {
	head := len(bundleMagic) + sha256.Size + 4
	if len(b) < head || string(b[:len(bundleMagic)]) != bundleMagic {
		return nil, errAST
	}
	var written [2 * sha256.Size]byte
	hex.Encode(written[:], b[len(bundleMagic):len(bundleMagic)+sha256.Size])
	if string(written[:]) != key {
		return nil, errEntryKey
	}
	body := b[head:]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(b[head-4:head]) {
		return nil, errEntrySum
	}
	progs := make([]*ast.Program, 0, n)
	for len(body) > 0 {
		size, k := binary.Uvarint(body)
		if k <= 0 || size > uint64(len(body)-k) {
			return nil, errAST
		}
		prog, err := decodeAST(body[k : k+int(size)])
		if err != nil {
			return nil, err
		}
		progs = append(progs, prog)
		body = body[k+int(size):]
	}
	if len(progs) != n {
		return nil, errAST
	}
	return progs, nil
}
