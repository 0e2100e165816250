package theme

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	t.Parallel()
	src := `{{> head}} {{~> header }} {{#> layout}}x{{/layout}} {{> (lookup . "p")}} {{> post-rich post}} {{!-- > not --}}`
	if got, want := strings.Join(partialRefs(src), " "), "head header layout ( post-rich"; got != want {
		t.Errorf("partialRefs = %q; want %q", got, want)
	}
	// The scan finds what the pattern it replaced finds, on every
	// template of the test themes and on near misses.
	oracle := regexp.MustCompile(`\{\{~?\s*#?>\s*(\(|[A-Za-z0-9_-]+)`)
	srcs := []string{"", "{{", "{{>", "{{> ", "{{{> a}}", "{{~ #> a-b_c9 }}", "{{#>(x)}}", "{{ ~> a}}", "{{>\f\r\n\ta}}", "{{> é}}", "{{>>a}}", "{{#~> a}}"}
	fs.WalkDir(os.DirFS("testdata"), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".hbs") {
			b, _ := os.ReadFile(filepath.Join("testdata", p))
			srcs = append(srcs, string(b))
		}
		return nil
	})
	if len(srcs) < 20 {
		t.Fatalf("only %d sources; want the test themes' templates too", len(srcs))
	}
	for _, src := range srcs {
		var want []string
		for _, m := range oracle.FindAllStringSubmatch(src, -1) {
			want = append(want, m[1])
		}
		if got := partialRefs(src); !slices.Equal(got, want) {
			t.Errorf("partialRefs(%.60q) = %q; the pattern finds %q", src, got, want)
		}
	}
}
