package blog_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"
	"github.com/murlog/murlog"
	"github.com/murlog/murlog/post"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// rendered reads s as a feed reader does an HTML field: the text it shows
// and the elements it makes.
func rendered(t *testing.T, s string) (text string, elems map[string][]xhtml.Attribute) {
	t.Helper()
	nodes, err := xhtml.ParseFragment(strings.NewReader(s), &xhtml.Node{Type: xhtml.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	var b strings.Builder
	elems = map[string][]xhtml.Attribute{}
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		switch n.Type {
		case xhtml.TextNode:
			b.WriteString(n.Data)
		case xhtml.ElementNode:
			elems[n.Data] = append([]xhtml.Attribute{}, n.Attr...) // present, even with no attributes
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return b.String(), elems
}

// TestFeedsShowTextAsText: tags typed in a note reach a feed reader as
// the text typed, in the RSS description (which readers render as HTML)
// and in the content; an article's real formatting (a Markdown link and
// emphasis) arrives as HTML in content:encoded and Atom's content.
func TestFeedsShowTextAsText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	note := e.note("I typed <b>bold</b> & <script>x()</script> here")
	article := e.post(post.CreateInput{Kind: murlog.KindArticle, Title: "Formatting",
		Content: "See [the docs](https://example.com/docs) for *real* emphasis."})
	const typed = "I typed <b>bold</b> & <script>x()</script> here"
	for _, path := range []string{"/@alice/feed.rss", "/@alice/feed.atom"} {
		r := e.get(path)
		f, err := gofeed.NewParser().Parse(bytes.NewReader([]byte(r.body)))
		if r.status != 200 || err != nil {
			t.Fatalf("GET %s = %d, %v", path, r.status, err)
		}
		items := map[string]*gofeed.Item{} // by guid / id: the post's stable address
		for _, it := range f.Items {
			items[it.GUID] = it
		}
		n, a := items[e.site.PostURL("alice", note.ID)], items[e.site.PostURL("alice", article.ID)]
		if n == nil || a == nil {
			t.Fatalf("GET %s: items %v; want the note and the article", path, f.Items)
		}
		// RSS description is HTML; Atom's summary is text (type text).
		desc := n.Description
		if strings.HasSuffix(path, ".rss") {
			var elems map[string][]xhtml.Attribute
			desc, elems = rendered(t, n.Description)
			if _, bold := elems["b"]; bold || elems["script"] != nil {
				t.Errorf("GET %s: the note's description %q renders as markup %v; want text", path, n.Description, elems)
			}
		}
		if desc != typed {
			t.Errorf("GET %s: the note's description shows %q; want %q", path, desc, typed)
		}
		text, elems := rendered(t, n.Content)
		if _, bold := elems["b"]; bold || !strings.Contains(text, typed) {
			t.Errorf("GET %s: the note's content %q shows %q with %v; want the typed text, no <b>", path, n.Content, text, elems)
		}
		_, elems = rendered(t, a.Content)
		link := ""
		for _, at := range elems["a"] {
			if at.Key == "href" {
				link = at.Val
			}
		}
		if link != "https://example.com/docs" || elems["em"] == nil {
			t.Errorf("GET %s: the article's content %q; want a link to https://example.com/docs and <em>", path, a.Content)
		}
	}
}
