package theme_test

import (
	"testing"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/theme"
)

// BenchmarkRenderPost is a serve-mode post page: the Set keeps its parsed
// templates and asset hashes.
func BenchmarkRenderPost(b *testing.B) { benchRenderPost(b, theme.EngineAuto) }

// BenchmarkRenderPostRaymond is the same with raymond's Exec only.
func BenchmarkRenderPostRaymond(b *testing.B) { benchRenderPost(b, theme.EngineRaymond) }

func benchRenderPost(b *testing.B, e theme.Engine) {
	s, _ := newSet(b, theme.Options{Engine: e})
	p := postPage(s.Info("default"))
	if _, ok := s.Render("default", "post", p); !ok {
		b.Fatal("Render fell back")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		in := s.Info("default")
		p.Theme = blog.NewThemeView(in)
		if _, ok := s.Render("default", "post", p); !ok {
			b.Fatal("Render fell back")
		}
	}
}

// BenchmarkColdRenderPost is the CGI cost: a new OneShot Set per page,
// which reads theme.json, hashes the assets and parses what the post page
// uses (and compiles it).
func BenchmarkColdRenderPost(b *testing.B) { benchColdRenderPost(b, theme.EngineAuto) }

// BenchmarkColdRenderPostRaymond is the same with raymond's Exec only.
func BenchmarkColdRenderPostRaymond(b *testing.B) { benchColdRenderPost(b, theme.EngineRaymond) }

func benchColdRenderPost(b *testing.B, e theme.Engine) {
	fsys := testFS()
	p := postPage(theme.Info{})
	b.ReportAllocs()
	for range b.N {
		s := theme.NewSet(fsys, theme.Options{OneShot: true, Engine: e})
		in := s.Info("default")
		p.Theme = blog.NewThemeView(in)
		if _, ok := s.Render("default", "post", p); !ok {
			b.Fatal("Render fell back")
		}
	}
}
