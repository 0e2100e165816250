package murlog

import "time"

// PubConfig is one persona's public-site settings (seed: user_pub_configs):
// how its blog at /@name (and, for the primary persona, at /) looks and
// what its sidebar shows. A persona with no stored row reads as
// DefaultPubConfig; the store never invents a row.
type PubConfig struct {
	PersonaID    string
	SiteName     string // ≤ 50 characters; "" shows the display name
	Subtitle     string // ≤ 50
	Author       string // ≤ 50; the default author shown on posts, "" for the display name
	Introduction string // ≤ 1,000, plain text
	DesignTheme  string // a theme under web/themes; "" for the default
	// Switches of the page furniture.
	ShowServiceHeader bool
	ShowSiteName      bool
	ShowPagination    bool // prev/next links on post pages, pager on lists
	ShowSideProfile   bool
	// SideRecent and SidePopular are how many recent and popular posts the
	// sidebar lists; ≤ 0 hides the list. Stored as written; readers clamp
	// to MaxSidePosts (the seed's PUB_SIDE_POSTS_MAX).
	SideRecent  int
	SidePopular int
	// Extensions is the validated JSON object text of the seed's extension
	// area (share buttons, comments mode, analytics), "{}" for none.
	Extensions string
	UpdatedAt  time.Time
}

// MaxSidePosts bounds the sidebar lists whatever is stored, so a setting
// of a million never turns into a million-row query.
const MaxSidePosts = 20

// DefaultPubConfig is what a persona without a stored row reads as (the
// seed's column defaults).
func DefaultPubConfig(personaID string) *PubConfig {
	return &PubConfig{
		PersonaID: personaID, ShowServiceHeader: true, ShowSiteName: true, ShowPagination: true,
		ShowSideProfile: true, SideRecent: 5, SidePopular: 5, Extensions: "{}",
	}
}

// ClampSide returns n bounded to 0…MaxSidePosts: what a sidebar shows for
// a stored count.
func ClampSide(n int) int {
	switch {
	case n < 0:
		return 0
	case n > MaxSidePosts:
		return MaxSidePosts
	}
	return n
}
