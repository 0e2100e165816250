package theme

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The hashes in the built-in themes' asset URLs are the same for every
// process of one binary, yet a CGI process computed them at every
// request: the stylesheet read and its url()s rewritten, every script
// read, all of it hashed, before the first byte of a page. Under a parse
// cache they are kept in one entry whose key names the executable (its
// path, size and modification time), so a new binary starts afresh and
// nothing can go stale; a themes_dir folder, which the owner edits in
// place, is hashed as before. ServeAsset checks a requested hash against
// the bytes whatever this entry says.
//
// The entry is sumsMagic, the key's 32 bytes, the CRC-32 of the rest,
// then lines of "<file>\t<hex SHA-256>\n" (version 2: the whole digest,
// which the SRI attributes need; version 1 kept the URL's 10 digits).
const sumsMagic = "mrlgas2\n"

// executableSumsKey is the asset-hash entry's key for the running binary,
// "" when the executable cannot be found or read.
func executableSumsKey() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	h := sha256.Sum256([]byte(sumsMagic + exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" +
		strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
	return hex.EncodeToString(h[:])
}

// loadSums fills s.hashes from the cached entry once. s.mu is held.
func (s *Set) loadSums() {
	if s.sumsKey == "" || s.sumsLoaded {
		return
	}
	s.sumsLoaded = true
	b := s.o.ParseCache.Get(s.sumsKey)
	if b == nil {
		return
	}
	m, ok := openSums(s.sumsKey, b)
	if !ok {
		s.log().Debug("theme: asset hash entry refused", "key", s.sumsKey)
		return
	}
	for f, h := range m {
		if _, have := s.hashes[f]; !have {
			s.hashes[f] = h
		}
	}
}

// storeSums writes every hash s knows under the entry's key when one was
// computed since. s.mu is held.
func (s *Set) storeSums() {
	if !s.sumsDirty {
		return
	}
	s.sumsDirty = false
	if err := s.o.ParseCache.Put(s.sumsKey, sealSums(s.sumsKey, s.hashes)); err != nil {
		s.log().Debug("theme: asset hash entry not written", "err", err.Error())
	}
}

func sealSums(key string, m map[string]string) []byte {
	files := make([]string, 0, len(m))
	for f := range m {
		files = append(files, f)
	}
	sort.Strings(files)
	var body []byte
	for _, f := range files {
		body = append(body, f+"\t"+m[f]+"\n"...)
	}
	b := append([]byte(sumsMagic), make([]byte, 0, sha256.Size+4+len(body))...)
	b, _ = hex.AppendDecode(b, []byte(key))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(body))
	return append(b, body...)
}

// openSums reads an entry written by sealSums under key; ok is false for
// anything else (another key, damage, a malformed line).
func openSums(key string, b []byte) (map[string]string, bool) {
	head := len(sumsMagic) + sha256.Size + 4
	if len(b) < head || string(b[:len(sumsMagic)]) != sumsMagic {
		return nil, false
	}
	var written [2 * sha256.Size]byte
	hex.Encode(written[:], b[len(sumsMagic):len(sumsMagic)+sha256.Size])
	if string(written[:]) != key {
		return nil, false
	}
	body := b[head:]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(b[head-4:head]) {
		return nil, false
	}
	m := map[string]string{}
	for len(body) > 0 {
		line, rest, ok := bytes.Cut(body, []byte("\n"))
		if !ok {
			return nil, false
		}
		f, h, ok := strings.Cut(string(line), "\t")
		if !ok || f == "" || len(h) != digestLen || strings.Trim(h, "0123456789abcdef") != "" {
			return nil, false
		}
		m[f] = h
		body = rest
	}
	return m, true
}
