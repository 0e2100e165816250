package markup

import (
	"strings"
	"testing"
)

// benchNote is a 500-character (rune) note with 2 URLs, 3 hashtags and 1 mention.
var benchNote = func() string {
	s := "Spent the weekend moving my blog to a single-binary server. @alice@mastodon.example asked how the " +
		"ActivityPub side works, so here are the notes: https://blog.example/posts/2026/activitypub-notes and " +
		"the spec itself at https://www.w3.org/TR/activitypub/ which is surprisingly readable.\n\n" +
		"The trickiest part was HTTP signatures & key rotation; the easiest was rendering <p> tags. " +
		"Japanese text works too: 今日はいい天気でした。 #golang #ActivityPub #個人サイト\n\n" +
		"Next: media uploads, custom emoji, and maybe a proper search page. Feedback welcome!"
	r := []rune(s)
	for len(r) < 500 {
		r = append(r, []rune(" ok")...)
	}
	return string(r[:500])
}()

// benchArticle is a Markdown document of about 5,000 characters using most
// supported features.
var benchArticle = func() string {
	section := "## Section about #golang\n\n" +
		"This is a paragraph with *emphasis*, **strong text**, `inline code` and a [link](https://go.dev/doc/). " +
		"It mentions @alice@mastodon.example and links https://example.com/path?q=1 automatically. " +
		"日本語の文章も\n混ざっています。#日本語\n\n" +
		"- item one\n- item two with ~~strike~~\n- [x] done task\n\n" +
		"| Name | Value |\n|:-----|------:|\n| a | 1 |\n| b | 2 |\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(\"hello #notag\")\n}\n```\n\n" +
		"> A quote with a footnote[^1].\n\n"
	var b strings.Builder
	b.WriteString("# Benchmark article\n\n")
	for b.Len() < 4900 {
		b.WriteString(section)
	}
	b.WriteString("[^1]: The footnote text.\n")
	return b.String()
}()

func BenchmarkNote(b *testing.B) {
	r := testRenderer()
	res := r.Note(benchNote)
	if len(res.Tags) != 3 || len(res.Mentions) != 1 || strings.Count(res.HTML, `target="_blank"`) != 2 {
		b.Fatalf("benchNote: got %d tags, %d mentions, %d URLs; want 3, 1, 2",
			len(res.Tags), len(res.Mentions), strings.Count(res.HTML, `target="_blank"`))
	}
	b.SetBytes(int64(len(benchNote)))
	b.ReportAllocs()
	for b.Loop() {
		r.Note(benchNote)
	}
}

func BenchmarkArticle(b *testing.B) {
	r := testRenderer()
	r.Article(benchArticle) // build goldmark outside the timing
	b.SetBytes(int64(len(benchArticle)))
	b.ReportAllocs()
	for b.Loop() {
		r.Article(benchArticle)
	}
}

// BenchmarkArticleCold measures a CGI-style request: a fresh Renderer that
// must build goldmark before rendering.
func BenchmarkArticleCold(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		testRenderer().Article(benchArticle)
	}
}

// BenchmarkBreakLongWords is the display pass every post page makes:
// the rendered benchmark article (a link with a long address) and the
// rendered note, whose runs are all short (the cheap test alone).
func BenchmarkBreakLongWords(b *testing.B) {
	r := testRenderer()
	for _, c := range []struct{ name, html string }{
		{"article", r.Article(benchArticle + "\n\nSee https://example.com/a/very/long/path/to/a/page for more.\n").HTML},
		{"note", r.Note("A short note with #tags and https://go.dev/ in it.").HTML},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.html)))
			b.ReportAllocs()
			for b.Loop() {
				BreakLongWords(c.html)
			}
		})
	}
}
