package siteconfig

import (
	"encoding/json"
	"strings"

	"github.com/murlog/murlog"
)

// View is a persona's public-site settings as JSON, one field list and
// one name per setting wherever they are read: the "publication" block of
// site.get_settings (which adds persona_id and themes) and GET
// /api/pub/personas/{username}/config (which adds username, clamps the
// counts and names the theme in use).
type View struct {
	SiteName          string          `json:"site_name"`
	Subtitle          string          `json:"subtitle"`
	Author            string          `json:"author"`
	Introduction      string          `json:"introduction"`
	DesignTheme       string          `json:"design_theme"`
	ShowServiceHeader bool            `json:"show_service_header"`
	ShowSiteName      bool            `json:"show_site_name"`
	ShowPagination    bool            `json:"show_pagination"`
	ShowSideProfile   bool            `json:"show_side_profile"`
	ShowSideRecent    int             `json:"show_side_recent"`
	ShowSidePopular   int             `json:"show_side_popular"`
	Extensions        json.RawMessage `json:"extensions"`
}

// NewView is c as View, the counts as stored. c.Extensions is the
// validated text Load read ("{}" for none or for a refused one).
func NewView(c *murlog.PubConfig) View {
	ext := c.Extensions
	if ext == "" {
		ext = "{}"
	}
	return View{SiteName: c.SiteName, Subtitle: c.Subtitle, Author: c.Author, Introduction: c.Introduction,
		DesignTheme: c.DesignTheme, ShowServiceHeader: c.ShowServiceHeader, ShowSiteName: c.ShowSiteName,
		ShowPagination: c.ShowPagination, ShowSideProfile: c.ShowSideProfile, ShowSideRecent: c.SideRecent,
		ShowSidePopular: c.SidePopular, Extensions: json.RawMessage(ext)}
}

// Name is the site's name as its pages show it: the site name, else the
// persona's display name, else its username. The primary persona's is
// also the name of the whole server (NodeInfo, the owner's app).
func Name(c *murlog.PubConfig, p *murlog.Persona) string {
	switch {
	case c != nil && c.SiteName != "":
		return c.SiteName
	case p.DisplayName != "":
		return p.DisplayName
	}
	return p.Username
}

// About is what the site says it is in a sentence or a paragraph, for
// those who list it (NodeInfo, the instance document): the introduction,
// else the subtitle; "" when neither is set.
func About(c *murlog.PubConfig) string {
	if c == nil {
		return ""
	}
	if s := strings.TrimSpace(c.Introduction); s != "" {
		return s
	}
	return strings.TrimSpace(c.Subtitle)
}
