package mediadir_test

import (
	"bytes"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/mediadir"
)

// PNG is a 1×1 PNG image.
func PNG(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t *testing.T, dir, ref string, b []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImageAcceptsOnlyImagesInside(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "media")
	write(t, dir, "avatars/a.png", PNG(t))
	write(t, dir, "avatars/page.png", []byte("<!doctype html><script>alert(1)</script>"))
	write(t, dir, "avatars/x.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	write(t, dir, "h.avif", append([]byte{0, 0, 0, 0x1c}, []byte("ftypavif\x00\x00\x00\x00")...))
	write(t, base, "secret.png", PNG(t))
	if err := os.Symlink(filepath.Join(base, "secret.png"), filepath.Join(dir, "avatars", "link.png")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "dir.png"), 0o755)
	d := mediadir.New(dir)
	for ref, want := range map[string]string{"avatars/a.png": "image/png", "h.avif": "image/avif"} {
		if got, err := d.Image(ref); err != nil || got != want {
			t.Errorf("Image(%q) = %q, %v; want %s", ref, got, err, want)
		}
	}
	for _, ref := range []string{"", "avatars/none.png", "avatars/page.png", "avatars/x.svg", "avatars/link.png", "../secret.png",
		"/etc/passwd", "dir.png", "avatars/../avatars/a.png", ".hidden/a.png", `avatars\a.png`} {
		if typ, err := d.Image(ref); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("Image(%q) = %q, %v; want not_found", ref, typ, err)
		}
	}
	if _, err := mediadir.New("").Image("avatars/a.png"); err == nil {
		t.Error("a site without a media directory found an image")
	}
}

func TestServeImages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := PNG(t)
	hashed := "avatars/0123456789abcdef0123456789abcdef.png"
	write(t, dir, hashed, img)
	write(t, dir, "avatars/a.png", img)
	write(t, dir, "avatars/page.png", []byte("<html>hi</html>"))
	d := mediadir.New(dir)
	get := func(method, path string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		d.ServeHTTP(rec, req)
		return rec
	}
	r := get("GET", "/media/"+hashed)
	if r.Code != 200 || !bytes.Equal(r.Body.Bytes(), img) || r.Header().Get("Content-Type") != "image/png" ||
		r.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(r.Header().Get("Cache-Control"), "immutable") {
		t.Errorf("GET a content-addressed image: %d %v (%d bytes); want 200, image/png, nosniff, immutable", r.Code, r.Header(), r.Body.Len())
	}
	r = get("GET", "/media/avatars/a.png")
	if r.Code != 200 || strings.Contains(r.Header().Get("Cache-Control"), "immutable") || r.Header().Get("Last-Modified") == "" {
		t.Errorf("GET a named image: %d %v; want 200, revalidated, Last-Modified", r.Code, r.Header())
	}
	if r := get("GET", "/media/avatars/a.png", "If-Modified-Since", r.Header().Get("Last-Modified")); r.Code != http.StatusNotModified {
		t.Errorf("conditional GET: %d; want 304", r.Code)
	}
	if r := get("HEAD", "/media/avatars/a.png"); r.Code != 200 || r.Body.Len() != 0 {
		t.Errorf("HEAD: %d with %d bytes; want 200, none", r.Code, r.Body.Len())
	}
	if r := get("GET", "/media/avatars/a.png", "Range", "bytes=0-3"); r.Code != http.StatusPartialContent || r.Body.Len() != 4 {
		t.Errorf("range: %d, %d bytes; want 206, 4", r.Code, r.Body.Len())
	}
	for _, p := range []string{"/media/avatars/page.png", "/media/avatars/none.png", "/media/../murlog.ini", "/media/", "/media/avatars"} {
		if r := get("GET", p); r.Code != 404 {
			t.Errorf("GET %s: %d; want 404", p, r.Code)
		}
	}
	if r := get("POST", "/media/avatars/a.png"); r.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d; want 405", r.Code)
	}
}
