package app

import (
	"log/slog"

	"github.com/murlog/murlog/siteconfig"
	"github.com/murlog/murlog/store"
	"github.com/murlog/murlog/theme"
)

// newSiteConfig is the personas' public-site settings service: a design
// theme must be one the blog's theme set really holds (themes_dir, or
// the built-in copy). onChange drops what was rendered with the old
// settings.
func newSiteConfig(db store.Store, log *slog.Logger, themes *theme.Set, onChange func()) *siteconfig.Service {
	return siteconfig.New(db, siteconfig.Options{
		ThemeExists: func(name string) bool { return name == "" || themes.Exists(name) },
		ThemeNames:  themes.Names,
		OnChange:    onChange,
		Log:         log,
	})
}
