package sqlite

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/murlog/murlog"
)

type pubConfigs struct{ t *tx }

const pubConfigCols = `persona_id, site_name, subtitle, author, introduction, design_theme, show_service_header,
	show_site_name, show_pagination, show_side_profile, show_side_recent, show_side_popular, extensions, updated_at`

func scanPubConfig(sc interface{ Scan(...any) error }) (*murlog.PubConfig, error) {
	var c murlog.PubConfig
	var updated int64
	err := sc.Scan(&c.PersonaID, &c.SiteName, &c.Subtitle, &c.Author, &c.Introduction, &c.DesignTheme,
		&c.ShowServiceHeader, &c.ShowSiteName, &c.ShowPagination, &c.ShowSideProfile, &c.SideRecent,
		&c.SidePopular, &c.Extensions, &updated)
	if err != nil {
		return nil, err
	}
	c.UpdatedAt = fromMicros(updated)
	return &c, nil
}

func (r pubConfigs) Get(personaID string) (*murlog.PubConfig, error) {
	return one(r.t, "site settings", "SELECT "+pubConfigCols+" FROM pub_configs WHERE persona_id = ?", scanPubConfig, personaID)
}

func (r pubConfigs) Put(c *murlog.PubConfig) error {
	ext := c.Extensions
	if ext == "" {
		ext = "{}"
	}
	_, err := r.t.exec(`INSERT INTO pub_configs (`+pubConfigCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (persona_id) DO UPDATE SET site_name = excluded.site_name, subtitle = excluded.subtitle,
		author = excluded.author, introduction = excluded.introduction, design_theme = excluded.design_theme,
		show_service_header = excluded.show_service_header, show_site_name = excluded.show_site_name,
		show_pagination = excluded.show_pagination, show_side_profile = excluded.show_side_profile,
		show_side_recent = excluded.show_side_recent, show_side_popular = excluded.show_side_popular,
		extensions = excluded.extensions, updated_at = excluded.updated_at`,
		c.PersonaID, c.SiteName, c.Subtitle, c.Author, c.Introduction, c.DesignTheme, boolInt(c.ShowServiceHeader),
		boolInt(c.ShowSiteName), boolInt(c.ShowPagination), boolInt(c.ShowSideProfile), c.SideRecent, c.SidePopular,
		ext, micros(c.UpdatedAt))
	// The only CHECK of the table bounds extensions; the caller validates,
	// so this is a bug upstream, but it is the input that is wrong.
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_CHECK {
		return murlog.Invalid("extensions", "at most 4096 characters")
	}
	return err
}
