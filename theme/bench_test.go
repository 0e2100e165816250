package theme_test

import (
	"testing"

	"github.com/murlog/murlog/theme"
)

// BenchmarkRenderPost is a serve-mode post page: the Set keeps its parsed
// templates and asset hashes.
func BenchmarkRenderPost(b *testing.B) {
	s, _ := newSet(b, theme.Options{})
	p := postPage(s.Info("default"))
	if _, ok := s.Render("default", "post", p); !ok {
		b.Fatal("Render fell back")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		in := s.Info("default")
		p.Theme.Stylesheets, p.Theme.Scripts = in.Stylesheets, in.Scripts
		if _, ok := s.Render("default", "post", p); !ok {
			b.Fatal("Render fell back")
		}
	}
}

// BenchmarkColdRenderPost is the CGI cost: a new OneShot Set per page,
// which reads theme.json, hashes the assets and parses what the post page
// uses.
func BenchmarkColdRenderPost(b *testing.B) {
	fsys := testFS()
	p := postPage(theme.Info{})
	b.ReportAllocs()
	for range b.N {
		s := theme.NewSet(fsys, theme.Options{OneShot: true})
		in := s.Info("default")
		p.Theme.Stylesheets, p.Theme.Scripts = in.Stylesheets, in.Scripts
		if _, ok := s.Render("default", "post", p); !ok {
			b.Fatal("Render fell back")
		}
	}
}
