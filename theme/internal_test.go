package theme

import (
	"strings"
	"testing"

	"github.com/mailgun/raymond/v2"
)

// TestExecRecovers: raymond re-panics runtime errors (and panics on
// others); exec turns both into errors.
func TestExecRecovers(t *testing.T) {
	tpl := raymond.MustParse("{{boom}}")
	tpl.RegisterHelper("boom", func() string {
		var m map[string]int
		m["x"] = 1 // a runtime error inside a helper
		return ""
	})
	if _, err := exec(tpl, nil); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("exec of a panicking helper = %v; want a panic error", err)
	}
	tpl = raymond.MustParse("{{boom}}")
	tpl.RegisterHelper("boom", func() string { panic("not an error value") })
	if _, err := exec(tpl, nil); err == nil {
		t.Error("exec of a helper panicking with a string returned no error")
	}
}

func TestEq(t *testing.T) {
	for _, tc := range []struct {
		a, b any
		want bool
	}{
		{"rich", "rich", true}, {"rich", "plain", false}, {1, int64(1), true}, {1, 1.5, false},
		{uint8(2), 2.0, true}, {"1", 1, false}, {nil, nil, true}, {nil, "", false}, {true, true, true},
		{[]int{1}, []int{1}, false}, // not comparable: never equal
	} {
		if got := eq(tc.a, tc.b, nil); got != tc.want {
			t.Errorf("eq(%#v, %#v) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestPartialRefs(t *testing.T) {
	src := `{{> head}} {{~> header }} {{#> layout}}x{{/layout}} {{> (lookup . "p")}} {{> post-rich post}} {{!-- > not --}}`
	var got []string
	for _, m := range partialRef.FindAllStringSubmatch(src, -1) {
		got = append(got, m[1])
	}
	if want := "head header layout ( post-rich"; strings.Join(got, " ") != want {
		t.Errorf("partial refs = %q; want %q", got, want)
	}
}
