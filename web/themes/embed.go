// Package themes holds the public blog's themes shipped with murlog
// (default, newspaper, whiteboard, dark, vertical), built into the binary
// so that a site without a themes_dir folder still has them.
//
// Only what the theme loader reads is embedded: theme.json, templates/ and
// assets/ of each theme folder; package.json, tools/ and node_modules/
// (the precompiler's) stay out.
package themes

import (
	"embed"
	"io/fs"
)

// The patterns need at least one theme folder to match (go:embed refuses
// a pattern that matches nothing); default always exists.
//
//go:embed */theme.json */templates */assets
var files embed.FS

// FS returns the built-in themes, rooted like themes_dir: <name>/theme.json.
func FS() fs.FS { return files }
