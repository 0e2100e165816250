package httpd

import "strings"

// MatchETag reports whether an If-None-Match header names tag ("*", or
// any listed tag by the weak comparison RFC 9110 prescribes for it).
func MatchETag(header, tag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}
