package post

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/murlog/murlog"
)

// slugCase is one row of testdata/slugs.json, the table the composer's
// slug.ts passes too.
type slugCase struct {
	Title, Slug, Why string
}

type slugTable struct {
	Reserved []string
	Titles   []slugCase
}

func readSlugTable(t *testing.T) slugTable {
	t.Helper()
	b, err := os.ReadFile("testdata/slugs.json")
	if err != nil {
		t.Fatal(err)
	}
	var st slugTable
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestReservedSlugsAreTheTable: the composer refuses the same words.
func TestReservedSlugsAreTheTable(t *testing.T) {
	t.Parallel()
	want := readSlugTable(t).Reserved
	got := slices.Sorted(maps.Keys(reservedSlugs))
	if !slices.Equal(got, want) {
		t.Errorf("reserved slugs %v; testdata/slugs.json (the composer's list) says %v", got, want)
	}
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	for _, c := range readSlugTable(t).Titles {
		got := Slugify(c.Title)
		if got != c.Slug {
			t.Errorf("Slugify(%q) = %q; want %q (%s)", c.Title, got, c.Slug, c.Why)
		}
		if again := Slugify(got); again != got {
			t.Errorf("Slugify(Slugify(%q)) = %q; want %q again", c.Title, again, got)
		}
		if len(got) > MaxSlug || !utf8.ValidString(got) || strings.ContainsAny(got, "/.\x00%?#") ||
			strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Errorf("Slugify(%q) = %q: not one safe path segment", c.Title, got)
		}
		if got != "" {
			if err := CheckSlug(got); err != nil && !Reserved(got) {
				t.Errorf("CheckSlug(Slugify(%q) = %q) = %v; want it accepted", c.Title, got, err)
			}
		}
	}
}

func TestCheckSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		slug string
		ok   bool
	}{
		{"hello-world", true},
		{"日本語のタイトル", true},
		{"2024", true},
		{strings.Repeat("a", MaxSlug), true},
		{strings.Repeat("a", MaxSlug+1), false},
		{strings.Repeat("漢", 33), true},
		{strings.Repeat("漢", 34), false}, // 102 bytes
		{"Hello", false},
		{"hello world", false},
		{"hello--world", false},
		{"-hello", false},
		{"hello-", false},
		{"café", false},
		{"a/b", false},
		{"a.b", false},
		{".", false},
		{"..", false},
		{"a\x00b", false},
		{"a%2Fb", false},
		{"🎉", false},
		// Reserved: the addresses under /@name/ that are not posts, and
		// anything shaped like a post id.
		{"search", false},
		{"inbox", false},
		{"outbox", false},
		{"followers", false},
		{"following", false},
		{"featured", false},
		{"main-key", false},
		{"activities", false},
		{"tags", false},
		{"feed", false},
		{"index", false},
		{"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f", false},
		{"01a22c96785770f9bbb47a4a6ae66d4f", false},
		{"search-2", true},
	} {
		err := CheckSlug(tc.slug)
		if (err == nil) != tc.ok {
			t.Errorf("CheckSlug(%q) = %v; want ok %v", tc.slug, err, tc.ok)
		}
		if err != nil && (murlog.ErrorCode(err) != murlog.EInvalid || err.(*murlog.Error).Field != "slug") {
			t.Errorf("CheckSlug(%q) = %v; want an invalid error on field slug", tc.slug, err)
		}
	}
}

func TestUniqueSlug(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", MaxSlug)
	for _, tc := range []struct {
		base  string
		taken []string
		want  string
	}{
		{"hello", nil, "hello"},
		{"hello", []string{"hello"}, "hello-2"},
		{"hello", []string{"hello", "hello-2", "hello-3"}, "hello-4"},
		{"hello", []string{"hello-2"}, "hello"},
		{"search", nil, "search-2"},
		{"search", []string{"search-2"}, "search-3"},
		{long, []string{long}, long[:MaxSlug-2] + "-2"},
		{"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f", nil, "01a22c96-7857-70f9-bbb4-7a4a6ae66d4f-2"},
	} {
		taken := map[string]bool{}
		for _, s := range tc.taken {
			taken[s] = true
		}
		if got := uniqueSlug(tc.base, func(s string) bool { return taken[s] }); got != tc.want {
			t.Errorf("uniqueSlug(%q, %v) = %q; want %q", tc.base, tc.taken, got, tc.want)
		}
	}
}
