package themes_test

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/theme"
)

// TestEnginesAgree: every page template of every shipped theme, on the
// fixture pages and variants of them (no share area, empty lists, every
// pointer nil, the zero page), comes out of the compiled evaluator byte
// for byte as raymond writes it. The compiled Set runs EngineCompiled, so
// a page it declined would fail here rather than quietly use raymond.
func TestEnginesAgree(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ref := theme.NewSet(os.DirFS("."), theme.Options{Log: log, Engine: theme.EngineRaymond})
	fast := theme.NewSet(os.DirFS("."), theme.Options{Log: log, Engine: theme.EngineCompiled})
	n := 0
	for _, name := range shipped {
		info := fast.Info(name)
		tv := blog.NewThemeView(info)
		ps := variants(pages(tv))
		files := make([]string, 0, len(ps))
		for file := range ps {
			files = append(files, file)
		}
		sort.Strings(files)
		for _, file := range files {
			for _, tmpl := range []string{"site", "post", "tag", "search", "error"} {
				want, okR := ref.Render(name, tmpl, ps[file])
				got, okF := fast.Render(name, tmpl, ps[file])
				if !okR {
					t.Fatalf("%s %s on %s: raymond fell back: %s", name, tmpl, file, logs.String())
				}
				if !okF {
					t.Fatalf("%s %s on %s: the compiled evaluator fell back: %s", name, tmpl, file, logs.String())
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s %s on %s: outputs differ at byte %d:\ncompiled: %q\nraymond:  %q",
						name, tmpl, file, diffAt(got, want), around(got, diffAt(got, want)), around(want, diffAt(got, want)))
				}
				n++
			}
		}
	}
	t.Logf("%d pages identical", n)
}

// variants adds to the fixture pages the shapes a persona's settings and
// empty data give.
func variants(ps map[string]*blog.Page) map[string]*blog.Page {
	out := map[string]*blog.Page{}
	for k, p := range ps {
		out[k] = p
	}
	noShare := *ps["post"]
	noShare.Share = nil
	out["post-noshare"] = &noShare
	noButtons := *ps["post"]
	noButtons.Share = &blog.Share{URL: "https://blog.example/x"}
	out["post-nobuttons"] = &noButtons
	empty := *ps["site"]
	empty.Posts, empty.Pager, empty.Profile, empty.Sidebar = []blog.PostView{}, nil, nil, &blog.Sidebar{}
	empty.Meta.Tags, empty.Meta.Links, empty.Theme.Stylesheets = nil, nil, nil
	out["site-empty"] = &empty
	bare := *ps["post"]
	bare.Post, bare.Older, bare.Newer, bare.Share, bare.Sidebar, bare.Profile = nil, nil, nil, nil, nil, nil
	bare.Tag, bare.Search, bare.Error, bare.Pager, bare.Meta.GA, bare.T = nil, nil, nil, nil, nil, nil
	out["post-bare"] = &bare
	off := *ps["site"]
	off.Site.ShowServiceHeader, off.Site.ShowSiteName, off.Site.ShowPagination = false, false, false
	off.Site.SearchURL, off.Site.FeedRSS, off.Mode = "", "", blog.ModeView{}
	out["site-off"] = &off
	kwicEmpty := *ps["search"]
	kwicEmpty.Posts = []blog.PostView{{ID: "x", URL: "https://blog.example/x", ListTitle: ""}}
	out["search-kwic-empty"] = &kwicEmpty
	out["zero"] = &blog.Page{}
	return out
}

func diffAt(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func around(b []byte, i int) string {
	lo, hi := max(0, i-60), min(len(b), i+60)
	return strings.ToValidUTF8(string(b[lo:hi]), "?")
}

// BenchmarkRenderRaymond is BenchmarkRender with raymond's Exec only, so
// one run gives both figures.
func BenchmarkRenderRaymond(b *testing.B) {
	set := theme.NewSet(os.DirFS("."), theme.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Engine: theme.EngineRaymond})
	info := set.Info("default")
	ps := pages(blog.NewThemeView(info))
	for _, file := range []string{"post", "site"} {
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, ok := set.Render("default", file, ps[file]); !ok {
					b.Fatal("fallback")
				}
			}
		})
	}
}
