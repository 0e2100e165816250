package contenttype

import "testing"

func TestOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"index.html": "text/html; charset=utf-8", "assets/index-Ab12.JS": "text/javascript; charset=utf-8",
		"style.0123456789.css": "text/css; charset=utf-8", "manifest.webmanifest": "application/manifest+json",
		"a/b/font.woff2": "font/woff2", "icon.ico": "image/vnd.microsoft.icon", "README": "application/octet-stream",
		"x.exe": "application/octet-stream",
	} {
		if got := Of(name); got != want {
			t.Errorf("Of(%q) = %q; want %q", name, got, want)
		}
	}
}

func TestExtensions(t *testing.T) {
	t.Parallel()
	exts := Extensions()
	if len(exts) != len(contentTypes) {
		t.Fatalf("Extensions() has %d entries; want %d", len(exts), len(contentTypes))
	}
	for i, e := range exts {
		if Of("x"+e) == "application/octet-stream" {
			t.Errorf("Extensions()[%d] = %q, which Of does not know", i, e)
		}
		if i > 0 && exts[i-1] >= e {
			t.Errorf("Extensions() not sorted at %d: %q after %q", i, e, exts[i-1])
		}
	}
}
