package post_test

import (
	"strings"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/post"
)

// TestExcerptAndImageKept: a post keeps the start of its plain text and
// an article its first image, as stored, from creation and after each
// edit of the content; a note has no image.
func TestExcerptAndImageKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := "## 見出し\n\n" + strings.Repeat("長い本文です。 ", 60) + "\n\n![猫](https://img.example/cat.png)\n"
	a, err := e.posts.Create(ctx, post.CreateInput{PersonaID: e.persona, Kind: murlog.KindArticle, Title: "T", Content: body})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.posts.Get(ctx, a.ID, murlog.AudienceOwner)
	if err != nil {
		t.Fatal(err)
	}
	if want := markup.PlainTextPrefix(got.Content, murlog.ExcerptLen); got.Excerpt != want || got.Excerpt == "" {
		t.Errorf("stored excerpt = %q; want %q", got.Excerpt, want)
	}
	if got.Image != "https://img.example/cat.png" {
		t.Errorf("stored image = %q; want the article's first image", got.Image)
	}
	edit := "短い本文に変えた。"
	if _, err := e.posts.Update(ctx, post.UpdateInput{ID: a.ID, Content: &edit}); err != nil {
		t.Fatal(err)
	}
	got, _ = e.posts.Get(ctx, a.ID, murlog.AudienceOwner)
	if got.Excerpt != "短い本文に変えた。" || got.Image != "" {
		t.Errorf("after the edit: excerpt %q image %q; want the new text and no image", got.Excerpt, got.Image)
	}
	n, err := e.posts.Create(ctx, post.CreateInput{PersonaID: e.persona, Content: "a note https://img.example/x.png"})
	if err != nil {
		t.Fatal(err)
	}
	if n.Image != "" || !strings.HasPrefix(n.Excerpt, "a note") {
		t.Errorf("note: excerpt %q image %q", n.Excerpt, n.Image)
	}
}
