package theme_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/theme"
)

// testPages are postPage and the shapes other pages and settings give:
// list pages rich, plain and KWIC, no share area, empty lists, nil
// pointers, errors, the zero page.
func testPages(in theme.Info) map[string]*blog.Page {
	out := map[string]*blog.Page{"post": postPage(in)}
	noShare := postPage(in)
	noShare.Share, noShare.Sidebar = nil, nil
	out["post-noshare"] = noShare
	bare := postPage(in)
	bare.Post, bare.Older, bare.Newer, bare.Share, bare.Sidebar, bare.T = nil, nil, nil, nil, nil, nil
	bare.Meta.Tags, bare.Meta.Links = nil, nil
	out["post-bare"] = bare
	note := postPage(in)
	note.Post.Kind, note.Post.IsArticle, note.Post.IsNote, note.Post.Title, note.Post.Tags = "Note", false, true, "", nil
	note.Post.Summary = "cw <b>"
	out["post-note"] = note
	for _, mode := range []string{"rich", "plain", "kwic"} {
		p := postPage(in)
		p.Kind, p.IsPost, p.IsSite = "site", false, true
		p.Posts = []blog.PostView{*p.Post, *p.Post}
		p.Posts[1].Title, p.Posts[1].KWIC = "", []blog.KWICLine{{Before: "a <", Match: "hit", After: "& b"}, {Match: "only"}}
		p.Mode = blog.ModeView{Name: mode, IsRich: mode == "rich", IsPlain: mode == "plain", IsKWIC: mode == "kwic"}
		p.Pager = &blog.Pager{NextURL: "https://blog.example/@alice?after=x", FirstURL: "https://blog.example/@alice"}
		p.Post, p.Share = nil, nil
		p.Search = &blog.SearchView{Query: "q <x>", Action: "/search", NoHits: mode == "plain"}
		p.Tag = &blog.TagView{Name: "go & <x>"}
		out["list-"+mode] = p
	}
	empty := postPage(in)
	empty.Kind, empty.Posts, empty.Pager, empty.Post = "site", []blog.PostView{}, &blog.Pager{}, nil
	out["list-empty"] = empty
	for _, e := range []*blog.ErrorView{{Status: 404, Title: "Not <found>", Message: "m & m"}, {Status: 410, Gone: true}} {
		p := postPage(in)
		p.Kind, p.IsError, p.Post, p.Error = "error", true, nil, e
		out["error-"+string(rune('0'+e.Status%10))] = p
	}
	out["zero"] = &blog.Page{}
	return out
}

// TestEnginesAgree: the test themes' pages, every template on every
// context, are the same bytes from the compiled evaluator (alone: a page
// it declined would fail) and from raymond.
func TestEnginesAgree(t *testing.T) {
	ref, refLog := newSet(t, theme.Options{Engine: theme.EngineRaymond})
	fast, fastLog := newSet(t, theme.Options{Engine: theme.EngineCompiled})
	n := 0
	for _, name := range []string{"default", "dark", "tategaki"} {
		ps := testPages(fast.Info(name))
		for file, p := range ps {
			for _, tmpl := range []string{"site", "post", "tag", "search", "error"} {
				want, okR := ref.Render(name, tmpl, p)
				got, okF := fast.Render(name, tmpl, p)
				if okR != okF || !bytes.Equal(got, want) {
					t.Errorf("%s %s on %s: compiled (ok %v)\n%s\nraymond (ok %v)\n%s", name, tmpl, file, okF, got, okR, want)
				}
				if name != "tategaki" && !okF {
					t.Errorf("%s %s on %s fell back", name, tmpl, file)
				}
				n++
			}
		}
	}
	// tategaki has only post: both Sets fell back for the rest, alike.
	if f, r := strings.Count(fastLog.String(), "render failed"), strings.Count(refLog.String(), "render failed"); f != r {
		t.Errorf("compiled Set logged %d render failures, raymond's %d:\n%s", f, r, fastLog.String())
	}
	t.Logf("%d pages identical", n)
}

// withMethod has a method raymond calls for {{label}}.
type withMethod struct{ X string }

func (w withMethod) Label() string { return "<" + w.X + ">" }

// TestAutoUsesRaymond: a template the compiler does not cover (lookup, a
// hash argument) and a value it declines (a method, each over a map) still
// render, as raymond renders them.
func TestAutoUsesRaymond(t *testing.T) {
	fsys := fstest.MapFS{
		"default/theme.json":               {Data: []byte(`{"name":"default","templates":["post","site"],"partials":["p"]}`)},
		"default/templates/post.hbs":       {Data: []byte(`{{lookup . "x"}}|{{#if n includeZero=true}}zero{{/if}}|{{> p}}`)},
		"default/templates/site.hbs":       {Data: []byte(`{{#with obj}}{{label}}{{/with}}|{{#each one}}{{@key}}={{this}}{{/each}}|{{> p}}`)},
		"default/templates/partials/p.hbs": {Data: []byte(`{{x}}`)},
	}
	ctx := map[string]any{"x": "<y>", "n": 0, "obj": withMethod{X: "m"}, "one": map[string]int{"k": 1}}
	for _, oneShot := range []bool{false, true} {
		auto := theme.NewSet(fsys, theme.Options{OneShot: oneShot, Log: (&logBuf{}).logger()})
		ref := theme.NewSet(fsys, theme.Options{OneShot: oneShot, Engine: theme.EngineRaymond, Log: (&logBuf{}).logger()})
		strict := theme.NewSet(fsys, theme.Options{OneShot: oneShot, Engine: theme.EngineCompiled, Log: (&logBuf{}).logger()})
		for tmpl, want := range map[string]string{"post": "&lt;y&gt;|zero|&lt;y&gt;", "site": "&lt;m&gt;|k=1|&lt;y&gt;"} {
			for range 2 { // a second time from the cache
				got, ok := auto.Render("default", tmpl, ctx)
				r, _ := ref.Render("default", tmpl, ctx)
				if !ok || string(got) != want || string(r) != want {
					t.Errorf("OneShot %v: Render(%s) = %q, %v; raymond %q; want %q", oneShot, tmpl, got, ok, r, want)
				}
			}
			if _, ok := strict.Render("default", tmpl, ctx); ok {
				t.Errorf("OneShot %v: EngineCompiled rendered %s, which it does not cover", oneShot, tmpl)
			}
		}
	}
}

// TestEnginesConcurrent renders from many goroutines on one Set: the
// per-segment type caches are shared (run with -race).
func TestEnginesConcurrent(t *testing.T) {
	s, _ := newSet(t, theme.Options{Engine: theme.EngineCompiled})
	ref, _ := newSet(t, theme.Options{Engine: theme.EngineRaymond})
	ps := testPages(s.Info("default"))
	want := map[string][]byte{}
	for file, p := range ps {
		want[file], _ = ref.Render("default", "site", p)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for file, p := range ps {
				if got, ok := s.Render("default", "site", p); !ok || !bytes.Equal(got, want[file]) {
					t.Errorf("%s: concurrent render differs (ok %v)", file, ok)
				}
			}
		})
	}
	wg.Wait()
}
