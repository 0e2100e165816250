package markup

// Helpers that read rendered HTML back as text, for page descriptions,
// Plain lists, KWIC search lines and feed summaries.
//
// TODO(h-meta): the bodies.

// PlainText returns the text of sanitized HTML: tags dropped, entities
// decoded, block boundaries as single spaces, whitespace collapsed.
func PlainText(html string) string { return html }

// Excerpt returns the first n characters of PlainText(html), cut at a word
// or sentence boundary where one is near, with "…" when cut.
func Excerpt(html string, n int) string { return html }

// FirstImage returns the src of the first <img> of sanitized HTML, "" for
// none: an article's featured image.
func FirstImage(html string) string { return "" }

// KWICHit is one keyword-in-context line of a search result.
type KWICHit struct{ Before, Match, After string }

// KWIC returns up to max lines of text around case-insensitive matches of
// any of terms, with about width characters on each side.
func KWIC(text string, terms []string, width, max int) []KWICHit { return nil }
