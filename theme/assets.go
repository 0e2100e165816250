package theme

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/murlog/murlog/internal/contenttype"
)

// hashLen is how many hex digits of the SHA-256 of an asset its URL carries.
const hashLen = 10

// digestLen is the hex digits of a whole SHA-256: what the Set keeps of
// each asset, the URL's hash its first hashLen, the SRI value all of it.
const digestLen = 2 * sha256.Size

// Asset is a hashed asset as a page links it.
type Asset struct {
	URL string // /themes/<provider>/<base>.<hash>.<ext>
	// Integrity is the Subresource Integrity value of the served bytes,
	// "sha256-<base64>": a browser refuses an asset whose bytes differ.
	Integrity string
}

// assetURL is a's content-hashed URL. s.mu is held.
func (s *Set) assetURL(a assetRef) (string, error) {
	as, err := s.assetOf(a)
	return as.URL, err
}

// assetOf is a's URL and integrity. s.mu is held.
func (s *Set) assetOf(a assetRef) (Asset, error) {
	d, err := s.hash(a)
	if err != nil {
		s.log().Error("theme: asset unreadable", "theme", a.provider, "asset", a.path, "err", err.Error())
		return Asset{}, err
	}
	return Asset{URL: "/themes/" + a.provider + "/" + hashedName(a.path, d[:hashLen]), Integrity: integrity(d)}, nil
}

// integrity is the SRI value of the hex SHA-256 digest d.
func integrity(d string) string {
	b, err := hex.DecodeString(d)
	if err != nil || len(b) != sha256.Size {
		return ""
	}
	return "sha256-" + base64.StdEncoding.EncodeToString(b)
}

// hashedName is "<base>.<hash>.<ext>" for assets/<p>.
func hashedName(p, h string) string {
	base := path.Base(p)
	ext := path.Ext(base)
	return strings.TrimSuffix(base, ext) + "." + h + ext
}

// hash is the hex SHA-256 of what ServeAsset sends for a (a stylesheet
// after its url() references are rewritten). s.mu is held.
func (s *Set) hash(a assetRef) (string, error) {
	s.loadSums()
	if h, ok := s.hashes[a.file()]; ok {
		return h, nil
	}
	var h string
	if path.Ext(a.path) == ".css" {
		b, err := s.content(a)
		if err != nil {
			return "", err
		}
		h = sum(b)
	} else {
		// Served as they are: hashed from the file without a copy of it
		// (a CGI process hashes each asset a page names).
		var err error
		if h, err = sumFile(s.fsys, a.file()); err != nil {
			return "", err
		}
	}
	s.hashes[a.file()] = h
	s.sumsDirty = s.sumsKey != ""
	return h, nil
}

// sumFile is the sum of the file name in fsys, read in small pieces.
func sumFile(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.CopyBuffer(d, struct{ io.Reader }{f}, make([]byte, 4096)); err != nil {
		return "", err
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}

// sum is the hex SHA-256 of b.
func sum(b []byte) string {
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}

// cssURL matches url(…) in a stylesheet, quoted or not.
var cssURL = regexp.MustCompile(`url\(\s*(?:"([^"]*)"|'([^']*)'|([^'")\s]*))\s*\)`)

// content is the bytes served for a. A stylesheet's url() references to
// files the providing theme lists (fonts, images under "files") become
// their hashed URLs, since only hashed names are served; references to
// other stylesheets are left alone (no import chains to hash).
func (s *Set) content(a assetRef) ([]byte, error) {
	b, err := fs.ReadFile(s.fsys, a.file())
	if err != nil {
		return nil, err
	}
	if path.Ext(a.path) != ".css" {
		return b, nil
	}
	owner := s.load(a.provider, nil)
	if owner.err != nil {
		return b, nil
	}
	var rerr error
	out := cssURL.ReplaceAllFunc(b, func(m []byte) []byte {
		g := cssURL.FindSubmatch(m)
		ref := string(g[1]) + string(g[2]) + string(g[3])
		if ref == "" || strings.Contains(ref, ":") || strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "#") {
			return m
		}
		ref, _, _ = strings.Cut(ref, "?")
		ref, frag, _ := strings.Cut(ref, "#")
		target := path.Join(path.Dir(a.path), ref)
		for _, f := range owner.files {
			if f.path != target || path.Ext(f.path) == ".css" {
				continue
			}
			u, err := s.assetURL(f)
			if err != nil {
				rerr = err
				return m
			}
			if frag != "" {
				u += "#" + frag
			}
			return []byte(`url("` + u + `")`)
		}
		return m
	})
	if rerr != nil {
		return nil, fmt.Errorf("%s: %w", a.file(), rerr)
	}
	return out, nil
}

// ServeAsset serves GET /themes/{theme}/{file}: content-hashed names only,
// immutable; anything else 404.
func (s *Set) ServeAsset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if th, f := r.PathValue("theme"), r.PathValue("file"); th != "" && f != "" {
		p = "/themes/" + th + "/" + f // routed by a pattern, maybe under a prefix
	}
	b, h, ext, ok := s.asset(p)
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", contenttype.Of(ext))
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("X-Content-Type-Options", "nosniff")
	// An SVG opened on its own is a document of this origin: no script.
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	hd.Set("ETag", `"`+h+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// asset finds the file a URL path names: a usable theme's own asset
// whose current hash is in the name. A stale hash is not served (the URL
// promises those exact bytes), and it refreshes the hash Info hands out.
func (s *Set) asset(urlPath string) (b []byte, h, ext string, ok bool) {
	rest, found := strings.CutPrefix(urlPath, "/themes/")
	name, file, found2 := strings.Cut(rest, "/")
	if !found || !found2 || !validName(name) || file == "" || strings.ContainsAny(file, "/\\") {
		return nil, "", "", false
	}
	ext = path.Ext(file)
	stem := strings.TrimSuffix(file, ext)
	i := strings.LastIndexByte(stem, '.')
	if i < 0 {
		return nil, "", "", false
	}
	h = stem[i+1:]
	if len(h) != hashLen || strings.Trim(h, "0123456789abcdef") != "" {
		return nil, "", "", false
	}
	orig := stem[:i] + ext
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.load(name, nil)
	if t.err != nil {
		return nil, "", "", false
	}
	for _, list := range [][]assetRef{t.css, t.js, t.files} {
		for _, a := range list {
			if a.provider != t.name || path.Base(a.path) != orig {
				continue
			}
			c, err := s.content(a)
			if err != nil {
				return nil, "", "", false
			}
			cur := sum(c)
			s.hashes[a.file()] = cur
			if cur[:hashLen] != h {
				return nil, "", "", false
			}
			return c, h, ext, true
		}
	}
	return nil, "", "", false
}
