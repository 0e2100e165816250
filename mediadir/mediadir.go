// Package mediadir is the media directory (media_path): which references
// name an image murlog serves, and serving them at /media/<ref>.
//
// It is the one place that decides whether a persona's avatar or header
// exists: personas.update refuses a path that does not name an image
// here, and /media/ serves exactly what it accepts, so every URL built
// from a stored path (the actor's icon and image, the pages and their
// JSON-LD, the owner's app) answers 200 with the image.
package mediadir

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/murlog/murlog"
)

// Prefix is where the media directory is served.
const Prefix = "/media/"

// sniffLen is how much of a file decides its type.
const sniffLen = 512

// Dir is a media directory. The zero value has none: nothing resolves.
type Dir struct {
	path string
}

// New returns the media directory at path.
func New(path string) *Dir { return &Dir{path: path} }

// Image reports the media type of the image ref names (avatars/abc.png):
// a regular file inside the directory — never outside it, whatever the
// reference or a symbolic link says (os.Root) — whose content is a PNG,
// JPEG, GIF, WebP or AVIF image. Anything else is ENotFound.
func (d *Dir) Image(ref string) (string, error) {
	f, err := d.open(ref)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return sniff(f)
}

func (d *Dir) open(ref string) (*os.File, error) {
	missing := murlog.Errorf(murlog.ENotFound, "no image %q in the media directory", ref)
	if d == nil || d.path == "" || !validRef(ref) {
		return nil, missing
	}
	root, err := os.OpenRoot(d.path)
	if err != nil {
		return nil, missing
	}
	defer root.Close()
	f, err := root.Open(ref)
	if err != nil {
		return nil, missing
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, missing
	}
	return f, nil
}

// validRef reports whether ref is a clean relative slash path with no
// parent steps, hidden names or backslashes.
func validRef(ref string) bool {
	if ref == "" || len(ref) > 500 || strings.ContainsAny(ref, "\\\x00") || path.Clean(ref) != ref || !fs.ValidPath(ref) {
		return false
	}
	for _, part := range strings.Split(ref, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// sniff reads the start of f and names its image type; the images murlog
// serves, by content, not by name (an .png that is HTML is no image).
func sniff(f *os.File) (string, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	head = head[:n]
	typ := http.DetectContentType(head)
	switch typ {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return typ, nil
	}
	// AVIF: an ISO BMFF ftyp box with the avif or avis brand.
	if len(head) >= 12 && string(head[4:8]) == "ftyp" && (string(head[8:12]) == "avif" || string(head[8:12]) == "avis") {
		return "image/avif", nil
	}
	return "", murlog.Errorf(murlog.ENotFound, "not an image (%s)", typ)
}

// ServeHTTP serves GET and HEAD /media/<ref>: the image, with its sniffed
// type, nosniff and a sandboxing CSP, and Last-Modified and Range through
// http.ServeContent. A content-addressed name (its base name a hex digest
// of at least 32 digits, as uploads will be named) is cached for a year
// as immutable; any other is revalidated. Anything that is not an image
// in the directory is 404.
func (d *Dir) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ref, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	f, err := d.open(ref)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	typ, err := sniff(f)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	st, err := f.Stat()
	if _, serr := f.Seek(0, io.SeekStart); err != nil || serr != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", typ)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if contentAddressed(ref) {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, no-cache")
	}
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// contentAddressed reports whether ref's base name, without extension,
// is a hex digest (at least 128 bits).
func contentAddressed(ref string) bool {
	stem := strings.TrimSuffix(path.Base(ref), path.Ext(ref))
	if len(stem) < 32 {
		return false
	}
	for _, c := range stem {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
