package config

import (
	"fmt"
	"strings"
)

type entry struct {
	line       int
	key, value string
}

// parse reads the ini dialect murlog writes: `key = value` or
// `key = "value"` lines, `#` or `;` comments, blank lines. Sections are not
// used; a `[section]` line is an error rather than silently ignored.
func parse(path string, b []byte) ([]entry, error) {
	var out []entry
	seen := map[string]int{}
	text := strings.TrimPrefix(string(b), "\ufeff")
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			return nil, fmt.Errorf("%s:%d: sections are not supported: %q", path, n, line)
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: expected key = value, got %q", path, n, line)
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, fmt.Errorf("%s:%d: missing key before '='", path, n)
		}
		val, err := parseValue(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: key %q: %w", path, n, k, err)
		}
		if prev, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s:%d: key %q: already set on line %d", path, n, k, prev)
		}
		seen[k] = n
		out = append(out, entry{line: n, key: k, value: val})
	}
	return out, nil
}

// parseValue unquotes a double-quoted value (with \" and \\ escapes) or
// strips a trailing comment from a bare one.
func parseValue(v string) (string, error) {
	if v == "" || v[0] != '"' {
		if i := strings.Index(v, " #"); i >= 0 {
			v = v[:i]
		}
		if i := strings.Index(v, " ;"); i >= 0 {
			v = v[:i]
		}
		return strings.TrimSpace(v), nil
	}
	var sb strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 >= len(v) {
				return "", fmt.Errorf("unterminated escape in %s", v)
			}
			i++
			switch v[i] {
			case '"', '\\':
				sb.WriteByte(v[i])
			default:
				return "", fmt.Errorf(`unknown escape \%c in %s`, v[i], v)
			}
		case '"':
			rest := strings.TrimSpace(v[i+1:])
			if rest != "" && rest[0] != '#' && rest[0] != ';' {
				return "", fmt.Errorf("unexpected text after closing quote: %q", rest)
			}
			return sb.String(), nil
		default:
			sb.WriteByte(c)
		}
	}
	return "", fmt.Errorf("missing closing quote in %s", v)
}

// quote renders a value for writing.
func quote(v string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`) + `"`
}
