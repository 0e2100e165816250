package blog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/blog"
	"github.com/murlog/murlog/post"
)

// TestPreviewPageOverridesTheTheme: the theme picker's preview is the
// newest listed post's page in the theme asked for (the site page when
// there is no post), and leaves the persona's own pages in its theme.
func TestPreviewPageOverridesTheTheme(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.loader.SiteTTL = time.Minute // the preview must not leak into what the Loader keeps
	vertical := verticalTheme(e)

	p, err := e.loader.PreviewPage(ctx, vertical)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "site" || p.Theme.Name != vertical || !p.Theme.Vertical {
		t.Errorf("preview of a site with no post = %s in %q (vertical %v); want the site page in %s", p.Kind, p.Theme.Name, p.Theme.Vertical, vertical)
	}

	e.note("older note")
	newest := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Newest", Content: "第12回に書いた"})
	e.clock.Advance(time.Second)
	// Newer, but not listed on the public site: never the preview.
	e.post(post.CreateInput{Content: "unlisted", Visibility: murlog.VisibilityUnlisted})
	e.post(post.CreateInput{Content: "draft", PublishedAt: post.Schedule{Mode: post.PublishDraft}})
	e.post(post.CreateInput{Content: "scheduled", PublishedAt: post.Schedule{Mode: post.PublishAt, At: e.clock.Now().Add(time.Hour)}})
	e.clock.Advance(time.Second)
	e.loader.Invalidate()

	p, err = e.loader.PreviewPage(ctx, vertical)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "post" || p.Post == nil || p.Post.ID != newest.ID {
		t.Fatalf("preview = %s %+v; want the page of the newest listed post %s", p.Kind, p.Post, newest.ID)
	}
	if p.Theme.Name != vertical || !strings.Contains(p.Post.ContentHTML, `<span class="tcy">12</span>`) {
		t.Errorf("preview theme %q, content %q; want %s and its display form", p.Theme.Name, p.Post.ContentHTML, vertical)
	}
	body := string(blog.RenderPage(e.loader.Themes, p))
	if !strings.Contains(body, "/themes/"+vertical+"/") {
		t.Errorf("rendered preview does not use %s's assets:\n%.500s", vertical, body)
	}
	if csp := blog.PreviewCSP(p); !strings.Contains(csp, "frame-ancestors 'self'") ||
		strings.Replace(csp, "frame-ancestors 'self'", "frame-ancestors 'none'", 1) != blog.CSP(p) {
		t.Errorf("PreviewCSP = %q; want CSP %q with frame-ancestors 'self'", csp, blog.CSP(p))
	}

	// The persona's own page keeps its theme (default) after a preview.
	own, err := e.loader.PostPage(ctx, "alice", seg(newest))
	if err != nil {
		t.Fatal(err)
	}
	if own.Theme.Name != "default" || own.Theme.Vertical || strings.Contains(own.Post.ContentHTML, "tcy") {
		t.Errorf("the public page after a preview is in %q (vertical %v); want default", own.Theme.Name, own.Theme.Vertical)
	}
	if r := e.get("/"); strings.Contains(r.body, "/themes/"+vertical+"/") {
		t.Errorf("the public site page after a preview uses %s", vertical)
	}

	for _, name := range []string{"no-such-theme", "../default", "", "default/theme.json"} {
		if _, err := e.loader.PreviewPage(ctx, name); murlog.ErrorCode(err) != murlog.ENotFound {
			t.Errorf("PreviewPage(%q) = %v; want not_found", name, err)
		}
	}
}
