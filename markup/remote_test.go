package markup

import (
	"slices"
	"strings"
	"testing"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// mastodonSample is a Mastodon post (a mention, a hashtag and a shortened
// link with its invisible spans) in the form RemotePolicy gives back
// unchanged.
const mastodonSample = `<p><span class="h-card"><a href="https://gts.example/@carol" class="u-url mention" rel="nofollow noopener noreferrer" target="_blank">@<span>carol</span></a></span> see <a href="https://mastodon.example/tags/golang" class="mention hashtag" rel="nofollow noopener noreferrer" target="_blank">#<span>golang</span></a> <a href="https://go.dev/blog/go1.26" rel="nofollow noopener noreferrer" target="_blank"><span class="invisible">https://</span><span class="ellipsis">go.dev/blog/go1.26</span><span class="invisible"></span></a></p><p>second<br/>line</p>`

// remoteHostile is the hostile table, also the seed corpus of the fuzzer.
var remoteHostile = []struct{ name, in, want string }{
	{"mastodon sample byte-exact", mastodonSample, mastodonSample},
	{"mastodon as sent", `<p><span class="h-card" translate="no"><a href="https://gts.example/@carol" class="u-url mention">@<span>carol</span></a></span> <a href="https://mastodon.example/tags/go" class="mention hashtag" rel="tag">#<span>go</span></a> <a href="https://go.dev/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">go.dev/</span><span class="invisible"></span></a></p>`,
		`<p><span class="h-card"><a href="https://gts.example/@carol" class="u-url mention" rel="nofollow noopener noreferrer" target="_blank">@<span>carol</span></a></span> <a href="https://mastodon.example/tags/go" class="mention hashtag" rel="nofollow noopener noreferrer" target="_blank">#<span>go</span></a> <a href="https://go.dev/" rel="nofollow noopener noreferrer" target="_blank"><span class="invisible">https://</span><span class="">go.dev/</span><span class="invisible"></span></a></p>`},
	{"script", `<p>hi<script>alert(1)</script></p>`, `<p>hi</p>`},
	{"javascript link", `<a href="javascript:alert(1)">click</a>`, `click`},
	{"javascript entity tab", `<a href="jav&#x09;ascript:alert(1)">x</a>`, `x`},
	{"javascript entities", `<a href="&#106;&#97;vascript:alert(1)">x</a>`, `x`},
	{"data link", `<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>`, `x`},
	{"vbscript link", `<a href="VBScript:msgbox(1)">x</a>`, `x`},
	{"relative link", `<a href="/users/x">x</a>`, `x`},
	{"mailto link", `<a href="mailto:a@b.example">x</a>`, `x`},
	{"onerror", `<img src="x" onerror="alert(1)"><b onclick="x()">b</b>`, `<b>b</b>`},
	{"style attribute", `<p style="background:url(javascript:x)">p</p>`, `<p>p</p>`},
	{"style element", `<style>p{}</style><p>p</p>`, `<p>p</p>`},
	{"iframe", `<iframe src="https://evil.example"></iframe>ok`, `ok`},
	{"svg onload", `<svg onload="alert(1)"><circle/></svg>ok`, `ok`},
	{"math", `<math><mi xlink:href="javascript:x">m</mi></math>ok`, `ok`},
	{"ids dropped", `<p id="config">x</p><span id="a" class="mention">y</span>`, `<p>x</p><span class="mention">y</span>`},
	{"unknown class dropped", `<span class="mention evil">x</span><a href="https://a.example/" class="btn">y</a>`, `<span>x</span><a href="https://a.example/" rel="nofollow noopener noreferrer" target="_blank">y</a>`},
	{"class on p dropped", `<p class="mention">x</p>`, `<p>x</p>`},
	{"rel forced", `<a href="https://a.example/" rel="me opener" target="_self">x</a>`, `<a href="https://a.example/" rel="nofollow noopener noreferrer" target="_blank">x</a>`},
	{"headings to strong", `<h1 id="t">Title</h1><p>body</p>`, `<p><strong>Title</strong></p><p>body</p>`},
	{"images dropped", `<p><img src="https://a.example/i.png" alt="a">text</p>`, `<p>text</p>`},
	{"tables unwrapped", `<table><tr><td>cell</td></tr></table>`, `cell`},
	{"formatting kept", `<p><u>u</u> <s>s</s> <del>d</del> <em>e</em> <i>i</i> <code>c</code></p><pre><code>x</code></pre><blockquote><ul><li>a</li></ul><ol><li>b</li></ol></blockquote>`,
		`<p><u>u</u> <s>s</s> <del>d</del> <em>e</em> <i>i</i> <code>c</code></p><pre><code>x</code></pre><blockquote><ul><li>a</li></ul><ol><li>b</li></ol></blockquote>`},
	{"div and font unwrapped", `<div><font color="red">x</font></div>`, `x`},
	{"malformed nesting", `<p><b><i>x</b>y</i></p>`, `<p><b><i>x</i></b><i>y</i></p>`},
	{"unclosed tags", `<p><a href="https://a.example/">x<p>y`, `<p><a href="https://a.example/" rel="nofollow noopener noreferrer" target="_blank">x</a></p><p><a href="https://a.example/" rel="nofollow noopener noreferrer" target="_blank">y</a></p>`},
	{"comment", `<!-- <script>x</script> -->ok`, `ok`},
	{"attribute breakout", `<a href="https://a.example/&quot;onmouseover=&quot;x">x</a>`, `<a href="https://a.example/%22onmouseover=%22x" rel="nofollow noopener noreferrer" target="_blank">x</a>`},
	{"heading inside list", `<ul><li><h2>t</h2></li></ul>`, `<ul><li><p><strong>t</strong></p></li></ul>`},
	{"link with only a class", `<A ClAss>x</A><a class="mention" title="t">y</a>`, `xy`},
	{"form", `<form action="https://evil.example"><input name="x"><button>b</button></form>`, `b`},
}

func TestRemotePolicy(t *testing.T) {
	t.Parallel()
	for _, tt := range remoteHostile {
		got := Sanitize(tt.in, RemotePolicy())
		if got != tt.want {
			t.Errorf("%s: Sanitize(%q, RemotePolicy())\n got %q\nwant %q", tt.name, tt.in, got, tt.want)
		}
		if again := Sanitize(got, RemotePolicy()); again != got {
			t.Errorf("%s: sanitizing twice changed %q to %q", tt.name, got, again)
		}
	}
}

// FuzzRemotePolicyVsBluemonday checks RemotePolicy's output against
// bluemonday's UGCPolicy, a sanitizer written independently: every element
// and attribute we emit must be one UGCPolicy keeps on the same element,
// except the classes of our allow-list and the rel and target we add
// ourselves, and no link may be javascript: or data:.
func FuzzRemotePolicyVsBluemonday(f *testing.F) {
	for _, tt := range remoteHostile {
		f.Add(tt.in)
	}
	ugc := bluemonday.UGCPolicy()
	kept := map[string]bool{} // "el attr" → UGCPolicy keeps it; memo across inputs
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in, RemotePolicy())
		nodes, err := html.ParseFragment(strings.NewReader(out), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
		if err != nil {
			t.Fatalf("our output does not parse: %v", err)
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				checkAgainstUGC(t, ugc, kept, n)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		for _, n := range nodes {
			walk(n)
		}
	})
}

func checkAgainstUGC(t *testing.T, ugc *bluemonday.Policy, kept map[string]bool, n *html.Node) {
	t.Helper()
	el := n.Data
	// UGCPolicy drops an <a> without an href, so a link is judged with its
	// href below.
	if el != "a" && !ugcKeeps(ugc, kept, el, "", "") {
		t.Errorf("we keep <%s>, UGCPolicy does not", el)
	}
	if el == "a" && !slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == "href" }) {
		t.Errorf("<a> without href: %v", n.Attr)
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			if !remoteClass(el, a.Val) {
				t.Errorf("class %q on <%s> is outside our allow-list", a.Val, el)
			}
			continue
		case "rel":
			if el != "a" || a.Val != RemoteRel {
				t.Errorf("rel %q on <%s>; want %q on links only", a.Val, el, RemoteRel)
			}
			continue
		case "target":
			if el != "a" || a.Val != "_blank" {
				t.Errorf("target %q on <%s>", a.Val, el)
			}
			continue
		case "href":
			low := strings.ToLower(strings.TrimSpace(a.Val))
			if !strings.HasPrefix(low, "https://") && !strings.HasPrefix(low, "http://") {
				t.Errorf("href %q is not an absolute http(s) URL", a.Val)
			}
		case "id", "style":
			t.Errorf("%s attribute on <%s>", a.Key, el)
		}
		if !ugcKeeps(ugc, kept, el, a.Key, a.Val) {
			t.Errorf("we keep %s=%q on <%s>, UGCPolicy does not", a.Key, a.Val, el)
		}
	}
}

// ugcKeeps reports whether UGCPolicy keeps element el, and attribute key
// with value val on it when key is set.
func ugcKeeps(ugc *bluemonday.Policy, kept map[string]bool, el, key, val string) bool {
	memo := el + " " + key
	if key != "href" { // hrefs are judged by value, the rest by name
		if ok, seen := kept[memo]; seen {
			return ok
		}
	}
	n := &html.Node{Type: html.ElementNode, Data: el, DataAtom: atom.Lookup([]byte(el))}
	if key != "" {
		n.Attr = []html.Attribute{{Key: key, Val: val}}
	}
	if el != "br" {
		n.AppendChild(&html.Node{Type: html.TextNode, Data: "x"})
	}
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return false
	}
	out := ugc.Sanitize(b.String())
	ok := false
	nodes, _ := html.ParseFragment(strings.NewReader(out), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	for _, m := range nodes {
		if m.Type == html.ElementNode && m.Data == el {
			ok = key == ""
			for _, a := range m.Attr {
				ok = ok || a.Key == key
			}
		}
	}
	if key != "href" {
		kept[memo] = ok
	}
	return ok
}

// TestUGCOracle makes sure the fuzzer's oracle can say no: UGCPolicy
// refuses what RemotePolicy must never emit.
func TestUGCOracle(t *testing.T) {
	t.Parallel()
	ugc, kept := bluemonday.UGCPolicy(), map[string]bool{}
	for _, tt := range []struct {
		el, key, val string
		want         bool
	}{
		{"iframe", "", "", false},
		{"a", "href", "javascript:alert(1)", false},
		{"p", "onclick", "x()", false},
		{"span", "style", "color:red", false},
		{"a", "href", "https://a.example/", true},
		{"strong", "", "", true},
	} {
		if got := ugcKeeps(ugc, kept, tt.el, tt.key, tt.val); got != tt.want {
			t.Errorf("ugcKeeps(<%s %s=%q>) = %v; want %v", tt.el, tt.key, tt.val, got, tt.want)
		}
	}
}
