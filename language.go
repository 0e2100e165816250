package murlog

import "regexp"

var languageRE = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// ValidLanguage reports whether tag looks like a BCP 47 language tag
// ("ja", "en-US", "zh-Hant-TW"); murlog stores tags as given.
func ValidLanguage(tag string) bool {
	return len(tag) <= 35 && languageRE.MatchString(tag)
}
