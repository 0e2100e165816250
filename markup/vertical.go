package markup

// Vertical writing (縦書き): direction-dependent text is converted for
// display only. Printable ASCII becomes its full-width form and the ASCII
// space an ideographic space, so Latin letters and digits stand upright in
// a vertical-rl column. Stored text never changes.
//
// TODO(h-theme): the bodies.

// VerticalText converts plain text.
func VerticalText(s string) string { return s }

// Vertical converts the text nodes of sanitized HTML, leaving tags,
// attributes (URLs) and the text of <code>, <pre>, <kbd> and <samp> alone.
func Vertical(html string) string { return html }
