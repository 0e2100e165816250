package app

import (
	"log/slog"
	"slices"

	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
)

// shippedThemes are the themes under web/themes.
//
// TODO(h-blog): the blog wiring replaces shippedThemes and themeExists
// with the runtime's theme.Set (Names, Exists), which knows what
// themes_dir really holds.
var shippedThemes = []string{"dark", "default", "newspaper", "vertical", "whiteboard"}

// themeExists accepts the default ("") and the shipped theme names.
func themeExists(name string) bool { return name == "" || slices.Contains(shippedThemes, name) }

// newSiteConfig is the personas' public-site settings service. onChange
// drops what was rendered with the old settings.
func newSiteConfig(db store.Store, log *slog.Logger, onChange func()) *siteconfig.Service {
	return siteconfig.New(db, siteconfig.Options{
		ThemeExists: themeExists,
		ThemeNames:  func() []string { return slices.Clone(shippedThemes) },
		OnChange:    onChange,
		Log:         log,
	})
}

// pubConfigChanged is the site config service's OnChange.
//
// TODO(h-blog): the blog wiring sets rt.dropPages to its page cache's
// invalidation; until the blog exists nothing rendered depends on these
// settings.
func (rt *runtime) pubConfigChanged() {
	if rt.dropPages != nil {
		rt.dropPages()
	}
}
