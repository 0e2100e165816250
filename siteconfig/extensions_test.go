package siteconfig

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/murlog/murlog"
)

// TestExtensionsValid: what the seed allows is accepted, stored in its
// canonical compact form with unknown keys and key order kept.
func TestExtensionsValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, stored string }{
		{`{}`, `{}`},
		{"  {\n}\n", `{}`},
		{`{"shareButtons": ["x", "facebook", "line", "hatena"], "comments": {"mode": "moderated"},
		  "analytics": {"googleAnalytics": {"measurementId": "G-XXXXXXXXXX"}}}`,
			`{"shareButtons":["x","facebook","line","hatena"],"comments":{"mode":"moderated"},"analytics":{"googleAnalytics":{"measurementId":"G-XXXXXXXXXX"}}}`},
		// Unknown ids, keys and providers survive, in their order.
		{`{"zeta": {"a": [1, 2.5e3, -0, true, false, null]}, "shareButtons": ["mastodon", "x"], "analytics": {"plausible": {"domain": "a.example"}, "googleAnalytics": {"measurementId": "", "debug": true}}}`,
			`{"zeta":{"a":[1,2.5e3,-0,true,false,null]},"shareButtons":["mastodon","x"],"analytics":{"plausible":{"domain":"a.example"},"googleAnalytics":{"measurementId":"","debug":true}}}`},
		// Escapes are normalised: \u3042 is あ, "\/" is "/"; the ones JSON
		// needs stay, and U+2028 is escaped.
		{`{"k": "\u3042\/\"\\\n\u0001\u2028"}`, `{"k":"あ/\"\\\n\u0001\u2028"}`},
		{`{"k": "\ud83d\ude00"}`, `{"k":"😀"}`},
		// The measurement id is trimmed.
		{`{"analytics": {"googleAnalytics": {"measurementId": "  G-ABC  "}}}`, `{"analytics":{"googleAnalytics":{"measurementId":"G-ABC"}}}`},
		{`{"comments": {}}`, `{"comments":{}}`},
	} {
		got, ext, err := checkExtensions([]byte(tc.in))
		if err != nil || got != tc.stored {
			t.Errorf("checkExtensions(%s) = %s, %v; want %s", tc.in, got, err, tc.stored)
			continue
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("stored %s is not JSON", got)
		}
		// What is stored reads back as the same view.
		again, err := ParseExtensions(got)
		if err != nil || strings.Join(again.ShareButtons, ",") != strings.Join(ext.ShareButtons, ",") ||
			again.CommentsMode != ext.CommentsMode || again.GAMeasurementID != ext.GAMeasurementID || len(again.Raw) != len(ext.Raw) {
			t.Errorf("ParseExtensions(%s) = %+v, %v; want %+v", got, again, err, ext)
		}
	}
	ext, err := ParseExtensions(`{"shareButtons":["x","mastodon"],"comments":{"mode":"open"},"analytics":{"googleAnalytics":{"measurementId":"G-1"}},"future":1}`)
	if err != nil || strings.Join(ext.ShareButtons, ",") != "x,mastodon" || ext.CommentsMode != "open" || ext.GAMeasurementID != "G-1" ||
		string(ext.Raw["future"]) != "1" || string(ext.Raw["comments"]) != `{"mode":"open"}` {
		t.Errorf("view = %+v, %v", ext, err)
	}
	for _, s := range []string{"", "{}", `{"comments":{}}`} {
		if ext, err := ParseExtensions(s); err != nil || ext.CommentsMode != "none" || ext.ShareButtons != nil || ext.GAMeasurementID != "" {
			t.Errorf("ParseExtensions(%q) = %+v, %v; want comments none and nothing else", s, ext, err)
		}
	}
}

// TestExtensionsInvalid: each refusal names the field it is about.
func TestExtensionsInvalid(t *testing.T) {
	t.Parallel()
	long := `{"k":"` + strings.Repeat("a", MaxExtensions-7) + `"}` // 4,097 characters
	fits := `{"k":"` + strings.Repeat("あ", MaxExtensions-8) + `"` + strings.Repeat(" ", 100) + `}`
	if _, _, err := checkExtensions([]byte(fits)); err != nil {
		t.Errorf("4,096 characters (of multi-byte text, with whitespace): %v", err)
	}
	deep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	if _, _, err := checkExtensions([]byte(deep)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	for _, tc := range []struct{ name, in, field, msg string }{
		{"too long", long, "extensions", "too long"},
		{"too long escaped", `{"k":"` + strings.Repeat(`\n`, 2100) + `"}`, "extensions", "too long"},
		{"huge input", `{"k":"` + strings.Repeat(" ", 70000) + `"}`, "extensions", "too long"},
		{"array", `["x"]`, "extensions", "must be a JSON object, not an array"},
		{"string", `"{}"`, "extensions", "not a string"},
		{"null", `null`, "extensions", "not null"},
		{"number", `4`, "extensions", "not a number"},
		{"empty", ``, "extensions", "not valid JSON"},
		{"syntax", `{"a":}`, "extensions.a", "not valid JSON"},
		{"trailing", `{} {}`, "extensions", "unexpected data"},
		{"trailing comma", `{"a":1,}`, "extensions", "expected a key"},
		{"duplicate top", `{"a":1,"a":2}`, "extensions", `"a" twice`},
		{"duplicate nested", `{"comments":{"mode":"open","mode":"none"}}`, "extensions.comments", `"mode" twice`},
		{"duplicate escaped", `{"comments":{"mode":"open","\u006dode":"none"}}`, "extensions.comments", `"mode" twice`},
		{"too deep", strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), "extensions.a.a.a.a.a.a.a.a", "levels deep"},
		{"hostile depth", strings.Repeat("[", 100000), "extensions", "too long"},
		{"bad utf-8", "{\"a\":\"\xff\"}", "extensions", "UTF-8"},
		{"unpaired surrogate", `{"a":"\ud800x"}`, "extensions.a", "surrogate"},
		{"lone low surrogate", `{"a":"\udc00"}`, "extensions.a", "surrogate"},
		{"number out of range", `{"a":[1,-1e400]}`, "extensions.a[1]", "out of range"},
		{"raw control", "{\"a\":\"\x01\"}", "extensions.a", "control character"},
		{"share not array", `{"shareButtons":"x"}`, "extensions.shareButtons", "must be an array"},
		{"share not string", `{"shareButtons":["x",1]}`, "extensions.shareButtons[1]", "must be a string"},
		{"share empty id", `{"shareButtons":[""]}`, "extensions.shareButtons[0]", "not a share button id"},
		{"share bad id", `{"shareButtons":["x","line","face book"]}`, "extensions.shareButtons[2]", "not a share button id"},
		{"share long id", `{"shareButtons":["` + strings.Repeat("a", 65) + `"]}`, "extensions.shareButtons[0]", "1–64"},
		{"share duplicate", `{"shareButtons":["x","line","x"]}`, "extensions.shareButtons[2]", `"x" is listed twice (also at [0])`},
		{"comments not object", `{"comments":"open"}`, "extensions.comments", "must be an object"},
		{"mode unknown", `{"comments":{"mode":"public"}}`, "extensions.comments.mode", `none, moderated or open, not "public"`},
		{"mode case", `{"comments":{"mode":"Open"}}`, "extensions.comments.mode", "none, moderated or open"},
		{"mode not string", `{"comments":{"mode":null}}`, "extensions.comments.mode", "must be a string"},
		{"analytics not object", `{"analytics":[]}`, "extensions.analytics", "must be an object"},
		{"provider bad", `{"analytics":{"google analytics":{}}}`, "extensions.analytics", `provider name "google analytics"`},
		{"provider empty", `{"analytics":{"":{}}}`, "extensions.analytics", "provider name"},
		{"provider long", `{"analytics":{"` + strings.Repeat("p", 65) + `":{}}}`, "extensions.analytics", "provider name"},
		{"ga not object", `{"analytics":{"googleAnalytics":"G-1"}}`, "extensions.analytics.googleAnalytics", "must be an object"},
		{"ga id not string", `{"analytics":{"googleAnalytics":{"measurementId":12}}}`, "extensions.analytics.googleAnalytics.measurementId", "must be a string"},
		{"ga id long", `{"analytics":{"googleAnalytics":{"measurementId":"` + strings.Repeat("G", 129) + `"}}}`, "extensions.analytics.googleAnalytics.measurementId", "at most 128"},
		{"ga id control", `{"analytics":{"googleAnalytics":{"measurementId":"G-\u0007"}}}`, "extensions.analytics.googleAnalytics.measurementId", "control character"},
	} {
		_, _, err := checkExtensions([]byte(tc.in))
		e := murlog.AsError(err)
		if err == nil || e.Code != murlog.EInvalid || e.Field != tc.field || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: err = %v; want invalid %s containing %q", tc.name, err, tc.field, tc.msg)
		}
	}
	// 128 characters of measurement id is fine (after trimming).
	if _, _, err := checkExtensions([]byte(`{"analytics":{"googleAnalytics":{"measurementId":" ` + strings.Repeat("あ", 128) + ` "}}}`)); err != nil {
		t.Errorf("128-character measurement id: %v", err)
	}
	// A stored text over the limit is refused as it is, even when its
	// compact form would fit.
	if _, err := ParseExtensions(`{` + strings.Repeat(" ", MaxExtensions) + `}`); murlog.AsError(err).Field != "extensions" {
		t.Errorf("4,098-character stored text: %v", err)
	}
}

func TestThemeNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"", true}, {"default", true}, {"my_theme-2", true}, {strings.Repeat("a", 50), true},
		{strings.Repeat("a", 51), false}, {"../x", false}, {"a/b", false}, {"a.b", false}, {"dark ", false}, {"ダーク", false},
	} {
		if ValidThemeName(tc.s) != tc.ok {
			t.Errorf("ValidThemeName(%q) = %v", tc.s, !tc.ok)
		}
	}
}

// BenchmarkParseExtensions is the after-read check every page load pays
// (the seed's example object).
func BenchmarkParseExtensions(b *testing.B) {
	const s = `{"shareButtons":["x","facebook","line","hatena"],"comments":{"mode":"moderated"},"analytics":{"googleAnalytics":{"measurementId":"G-XXXXXXXXXX"}}}`
	for b.Loop() {
		if _, err := ParseExtensions(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdlibUnmarshal(b *testing.B) {
	const s = `{"shareButtons":["x","facebook","line","hatena"],"comments":{"mode":"moderated"},"analytics":{"googleAnalytics":{"measurementId":"G-XXXXXXXXXX"}}}`
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzExtensions: whatever is accepted is stored as valid JSON that
// encoding/json reads as the same value, and storing it again changes
// nothing (the stored form is canonical).
func FuzzExtensions(f *testing.F) {
	for _, s := range []string{`{}`, `{"shareButtons":["x","line"],"comments":{"mode":"open"}}`, `{"a":"\u3042\ud83d\ude00\n"}`,
		`{"analytics":{"googleAnalytics":{"measurementId":" G-1 "},"p":[1,-2.5e-3,{}]}}`, `{"a":[[[]]],"b":null,"c":true}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := checkExtensions([]byte(in))
		if err != nil {
			if murlog.ErrorCode(err) != murlog.EInvalid {
				t.Fatalf("%q: %v; want an invalid error", in, err)
			}
			return
		}
		var a, b any
		if json.Unmarshal([]byte(out), &a) != nil || json.Unmarshal([]byte(in), &b) != nil {
			t.Fatalf("%q stored as %q, which encoding/json does not read", in, out)
		}
		again, _, err := checkExtensions([]byte(out))
		if err != nil || again != out {
			t.Fatalf("%q stored as %q, then as %q (%v)", in, out, again, err)
		}
	})
}
