package murlog

// ValidLanguage reports whether tag looks like a BCP 47 language tag
// ("ja", "en-US", "zh-Hant-TW"); murlog stores tags as given: 2–3 ASCII
// letters, then subtags of 1–8 ASCII letters or digits after "-". It is
// written out rather than a regular expression, whose compiled form
// every process (each CGI request) would build at start-up.
func ValidLanguage(tag string) bool {
	if len(tag) > 35 {
		return false
	}
	n, i := 0, 0 // length of the current subtag, its index
	for k := 0; k <= len(tag); k++ {
		if k == len(tag) || tag[k] == '-' {
			if n == 0 || i == 0 && n < 2 || i == 0 && n > 3 || n > 8 {
				return false
			}
			n, i = 0, i+1
			continue
		}
		c := tag[k]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
		n++
	}
	return true
}
