// Package contenttype is the one table of the content types of the static
// files murlog serves (theme assets, the owner's app). It is a leaf: the
// renderers' packages and the HTTP edge use it without reaching each other.
package contenttype

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// contentTypes are the content types of the static files murlog serves
// (theme assets, the owner's app). They are fixed here rather than read
// from the system's MIME table, which differs between hosts: some lack
// .webmanifest or .woff2, or map .js to application/x-javascript.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
	".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".json": "application/json", ".map": "application/json", ".webmanifest": "application/manifest+json",
	".txt": "text/plain; charset=utf-8", ".wasm": "application/wasm",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".ico": "image/vnd.microsoft.icon",
	".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
}

// Of is the content type of a static file by its name's extension;
// application/octet-stream for any other.
func Of(name string) string {
	if t, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

// Extensions returns the extensions Of knows (".css", …), sorted: for
// writing the same table into a web server's configuration (cgi's
// artifact folder), so Apache and murlog name a file's type alike.
func Extensions() []string { return slices.Sorted(maps.Keys(contentTypes)) }
