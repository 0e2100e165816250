package meta

import "strings"

// OGLocale turns a BCP 47 tag into Open Graph's language_TERRITORY form
// ("ja" → "ja_JP", "en" → "en_US", "en-GB" → "en_GB", "zh-Hant" →
// "zh_TW"), "" when the language is unknown: a wrong locale is worse than
// none, since Facebook and others then pick the wrong dictionary.
func OGLocale(tag string) string {
	lang, script, region := splitTag(tag)
	if lang == "" {
		return ""
	}
	switch {
	case region == "419" && lang == "es":
		return "es_LA" // Facebook's Latin American Spanish
	case len(region) == 2:
		return lang + "_" + region
	}
	if lang == "zh" {
		switch script {
		case "hant":
			return "zh_TW"
		case "hans":
			return "zh_CN"
		}
	}
	if r := defaultRegion(lang); r != "" {
		return lang + "_" + r
	}
	return ""
}

// splitTag returns the lower-case language, the lower-case script and the
// upper-case region of a BCP 47 tag ("" for each part missing); lang is ""
// for a tag that does not start with a 2- or 3-letter language.
func splitTag(tag string) (lang, script, region string) {
	parts := strings.FieldsFunc(strings.TrimSpace(tag), func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 || !letters(parts[0]) || len(parts[0]) < 2 || len(parts[0]) > 3 {
		return "", "", ""
	}
	lang = strings.ToLower(parts[0])
	rest := parts[1:]
	if len(rest) > 0 && len(rest[0]) == 4 && letters(rest[0]) {
		script, rest = strings.ToLower(rest[0]), rest[1:]
	}
	if len(rest) > 0 {
		switch r := rest[0]; {
		case len(r) == 2 && letters(r):
			region = strings.ToUpper(r)
		case len(r) == 3 && allDigits(r):
			region = r
		}
	}
	return lang, script, region
}

func primaryLanguage(tag string) string {
	lang, _, _ := splitTag(tag)
	return lang
}

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// defaultRegion is the territory of Open Graph's locale for a bare
// language: the one Facebook's locale list uses for it, "" when unknown.
func defaultRegion(lang string) string {
	switch lang {
	case "ar", "bg", "de", "es", "fi", "fr", "hr", "hu", "id", "is", "it", "lt", "lv",
		"nl", "pl", "pt", "ro", "ru", "sk", "th", "tr":
		return strings.ToUpper(lang)
	case "en":
		return "US"
	case "ja":
		return "JP"
	case "ko":
		return "KR"
	case "zh":
		return "CN"
	case "bn", "hi":
		return "IN"
	case "ca", "eu", "gl":
		return "ES"
	case "cs":
		return "CZ"
	case "cy":
		return "GB"
	case "da":
		return "DK"
	case "el":
		return "GR"
	case "eo":
		return "EO"
	case "et":
		return "EE"
	case "fa":
		return "IR"
	case "ga":
		return "IE"
	case "he":
		return "IL"
	case "ms":
		return "MY"
	case "nb", "nn":
		return "NO"
	case "sl":
		return "SI"
	case "sr":
		return "RS"
	case "sv":
		return "SE"
	case "tl":
		return "PH"
	case "uk":
		return "UA"
	case "vi":
		return "VN"
	}
	return ""
}
