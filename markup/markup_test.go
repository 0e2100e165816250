package markup

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// testRenderer uses absolute, escaped URLs like the real server will.
func testRenderer() *Renderer {
	return New(Options{
		TagURL: func(tag string) string { return "https://blog.example/tags/" + url.PathEscape(tag) },
		MentionURL: func(user, host string) string {
			return "https://" + host + "/@" + user
		},
	})
}

// Expected fragments, spelled out once so the tables stay readable.
func tagHTML(tag string) string {
	return `<a href="https://blog.example/tags/` + url.PathEscape(tag) + `" class="mention hashtag" rel="tag">#<span>` + tag + `</span></a>`
}

func mentionHTML(user, host string) string {
	return `<span class="h-card"><a href="https://` + host + `/@` + user + `" class="u-url mention">@<span>` + user + `</span></a></span>`
}

func urlHTML(u string) string {
	return `<a href="` + u + `" rel="nofollow noopener noreferrer" target="_blank">` + u + `</a>`
}

func TestNoteHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		// Paragraphs and whitespace.
		{"empty", "", ""},
		{"whitespace only", " \n\t\r\n　", ""},
		{"single line", "hello", "<p>hello</p>"},
		{"trimmed", "\n\n  hello world \n\n", "<p>hello world</p>"},
		{"newline is br", "a\nb", "<p>a<br>b</p>"},
		{"blank line splits", "a\n\nb", "<p>a</p><p>b</p>"},
		{"many blank lines", "a\n\n\n\nb", "<p>a</p><p>b</p>"},
		{"whitespace-only line splits", "a\n  \t\nb", "<p>a</p><p>b</p>"},
		{"crlf", "a\r\nb\r\n\r\nc", "<p>a<br>b</p><p>c</p>"},
		{"lone cr", "a\rb\r\rc", "<p>a<br>b</p><p>c</p>"},
		{"inner indentation kept", "a\n  b", "<p>a<br>  b</p>"},

		// Escaping: nothing typed becomes markup.
		{"script", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"img onerror", `<img src=x onerror="alert(1)">`, "<p>&lt;img src=x onerror=&#34;alert(1)&#34;&gt;</p>"},
		{"attribute breakout", `"'><b>`, "<p>&#34;&#39;&gt;&lt;b&gt;</p>"},
		{"ampersand", "Tom & Jerry &amp;", "<p>Tom &amp; Jerry &amp;amp;</p>"},
		{"javascript url is text", "javascript:alert(1)", "<p>javascript:alert(1)</p>"},
		{"data url is text", "data:text/html,<b>x</b>", "<p>data:text/html,&lt;b&gt;x&lt;/b&gt;</p>"},
		{"markdown is text", "**bold** [x](https://e.com)", "<p>**bold** [x](" + urlHTML("https://e.com") + ")</p>"},
		{"controls stripped", "a\x00b\x07c\x1b[0m\u0085d\x7f", "<p>abc[0md</p>"},
		{"invalid utf8 replaced", "a\xffb", "<p>a\uFFFDb</p>"},

		// Japanese and emoji.
		{"japanese", "今日は良い天気。\n明日も。", "<p>今日は良い天気。<br>明日も。</p>"},
		{"emoji", "🎉 party 👨‍👩‍👧", "<p>🎉 party 👨‍👩‍👧</p>"},

		// URLs.
		{"url", "see https://example.com/a?b=c", "<p>see " + urlHTML("https://example.com/a?b=c") + "</p>"},
		{"http url", "http://example.com", "<p>" + urlHTML("http://example.com") + "</p>"},
		{"uppercase scheme", "HTTPS://EXAMPLE.COM", "<p>" + urlHTML("HTTPS://EXAMPLE.COM") + "</p>"},
		{"url ampersand escaped", "https://e.com/?a=1&b=2", "<p>" + urlHTML("https://e.com/?a=1&amp;b=2") + "</p>"},
		{"url trailing period", "go to https://example.com.", "<p>go to " + urlHTML("https://example.com") + ".</p>"},
		{"url trailing punctuation", "https://example.com/x?!,;:", "<p>" + urlHTML("https://example.com/x") + "?!,;:</p>"},
		{"url in parentheses", "(https://example.com/x)", "<p>(" + urlHTML("https://example.com/x") + ")</p>"},
		{"wikipedia url", "https://en.wikipedia.org/wiki/Go_(programming_language)",
			"<p>" + urlHTML("https://en.wikipedia.org/wiki/Go_(programming_language)") + "</p>"},
		{"wikipedia url in parentheses", "(see https://en.wikipedia.org/wiki/Go_(programming_language)).",
			"<p>(see " + urlHTML("https://en.wikipedia.org/wiki/Go_(programming_language)") + ").</p>"},
		{"url ends at 。", "https://example.com/a。次", "<p>" + urlHTML("https://example.com/a") + "。次</p>"},
		{"url ends at 、", "https://example.com/a、次", "<p>" + urlHTML("https://example.com/a") + "、次</p>"},
		{"url in 「」", "「https://example.com/a」", "<p>「" + urlHTML("https://example.com/a") + "」</p>"},
		{"url after japanese", "詳細はhttps://example.com/を参照", "<p>詳細は" + urlHTML("https://example.com/") + "を参照</p>"},
		{"url stops at quote", `https://e.com/"onmouseover="x`, "<p>" + urlHTML("https://e.com/") + "&#34;onmouseover=&#34;x</p>"},
		{"url apostrophe escaped", "https://e.com/it's", "<p>" + urlHTML("https://e.com/it&#39;s") + "</p>"},
		{"url stops at angle bracket", "<https://e.com/>", "<p>&lt;" + urlHTML("https://e.com/") + "&gt;</p>"},
		{"scheme only", "https:// and http://", "<p>https:// and http://</p>"},
		{"url inside word", "xhttps://e.com", "<p>xhttps://e.com</p>"},
		{"url across lines", "https://e.com/a\nb", "<p>" + urlHTML("https://e.com/a") + "<br>b</p>"},

		// Hashtags.
		{"tag", "#golang", "<p>" + tagHTML("golang") + "</p>"},
		{"tag in sentence", "I like #golang.", "<p>I like " + tagHTML("golang") + ".</p>"},
		{"japanese tag", "#日本語", "<p>" + tagHTML("日本語") + "</p>"},
		{"japanese tag with underscore and digits", "#ゲーム_2026", "<p>" + tagHTML("ゲーム_2026") + "</p>"},
		{"tag ends at 。", "#タグ。", "<p>" + tagHTML("タグ") + "。</p>"},
		{"tag ends at 、", "#タグ、次", "<p>" + tagHTML("タグ") + "、次</p>"},
		{"tag in 「」", "「#タグ」", "<p>「" + tagHTML("タグ") + "」</p>"},
		{"tag after full-width space", "本文　#タグ", "<p>本文　" + tagHTML("タグ") + "</p>"},
		{"tag after emoji", "🎉#party", "<p>🎉" + tagHTML("party") + "</p>"},
		{"tag after emoji with variation selector", "❤️#love", "<p>❤️" + tagHTML("love") + "</p>"},
		{"tag with accents", "#café", "<p>" + tagHTML("café") + "</p>"},
		{"tag with digits", "#go2026", "<p>" + tagHTML("go2026") + "</p>"},
		{"tag in parentheses", "(#go)", "<p>(" + tagHTML("go") + ")</p>"},
		{"tag at line start", "a\n#go", "<p>a<br>" + tagHTML("go") + "</p>"},
		{"digits only", "#123", "<p>#123</p>"},
		{"inside word", "a#b", "<p>a#b</p>"},
		{"after japanese letter", "日本#語", "<p>日本#語</p>"},
		{"in url fragment", "https://x.example/#frag", "<p>" + urlHTML("https://x.example/#frag") + "</p>"},
		{"after slash", "a/#b", "<p>a/#b</p>"},
		{"entity-like", "&#x41;", "<p>&amp;#x41;</p>"},
		{"lone hash", "# and #", "<p># and #</p>"},
		{"double hash", "##go", "<p>##go</p>"},

		// Mentions.
		{"mention", "@alice@example.com", "<p>" + mentionHTML("alice", "example.com") + "</p>"},
		{"mention host lowercased", "@Alice@Example.COM", "<p>" + mentionHTML("Alice", "example.com") + "</p>"},
		{"mention complex user and host", "@a.b-c_d@sub.example.co.jp",
			"<p>" + mentionHTML("a.b-c_d", "sub.example.co.jp") + "</p>"},
		{"mention trailing period", "hi @alice@example.com.", "<p>hi " + mentionHTML("alice", "example.com") + ".</p>"},
		{"mention trailing colon", "@alice@example.com: hi", "<p>" + mentionHTML("alice", "example.com") + ": hi</p>"},
		{"mention in parentheses", "(@alice@example.com)", "<p>(" + mentionHTML("alice", "example.com") + ")</p>"},
		{"mention before japanese", "@alice@example.com、こんにちは", "<p>" + mentionHTML("alice", "example.com") + "、こんにちは</p>"},
		{"bare mention is text", "@alice hi", "<p>@alice hi</p>"},
		{"email is text", "bob@example.com", "<p>bob@example.com</p>"},
		{"mention inside word", "x@alice@example.com", "<p>x@alice@example.com</p>"},
		{"port not allowed", "@alice@example.com:443", "<p>@alice@example.com:443</p>"},
		{"host without dot", "@alice@localhost", "<p>@alice@localhost</p>"},
		{"ip host", "@alice@192.168.0.1", "<p>@alice@192.168.0.1</p>"},
		{"user starts with dot", "@.alice@example.com", "<p>@.alice@example.com</p>"},
		{"user ends with dash", "@alice-@example.com", "<p>@alice-@example.com</p>"},
		{"host label ends with dash", "@alice@example-.com", "<p>@alice@example-.com</p>"},
		{"empty host label", "@alice@example..com", "<p>@alice@example..com</p>"},
		{"double at", "@alice@example.com@other.com", "<p>@alice@example.com@other.com</p>"},
		{"mention in url", "https://example.com/@alice@example.com", "<p>" + urlHTML("https://example.com/@alice@example.com") + "</p>"},

		// Mixed.
		{"everything", "Hi @bob@example.org! #Go at https://go.dev, #日本語\n\nbye",
			"<p>Hi " + mentionHTML("bob", "example.org") + "! " + tagHTML("Go") + " at " + urlHTML("https://go.dev") +
				", " + tagHTML("日本語") + "</p><p>bye</p>"},
	}
	r := testRenderer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Note(tt.in).HTML; got != tt.want {
				t.Errorf("Note(%q).HTML\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestNoteTagsAndMentions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		tags     []string
		mentions []Mention
	}{
		{"none", "hello", nil, nil},
		{"order of appearance", "#b #a #c", []string{"b", "a", "c"}, nil},
		{"dedup keeps first spelling", "#Go #go #GO #日本語 #日本語", []string{"Go", "日本語"}, nil},
		{"not tags", "#123 a#b https://e.com/#x", nil, nil},
		{"mentions", "@alice@a.example @bob@B.example", nil,
			[]Mention{{"alice", "a.example"}, {"bob", "b.example"}}},
		{"dedup mentions", "@Alice@Example.com @alice@example.COM @alice@other.example", nil,
			[]Mention{{"Alice", "example.com"}, {"alice", "other.example"}}},
		{"bare mention not listed", "@alice bob@example.com", nil, nil},
		{"mixed", "#x @u@h.example #x @u@h.example", []string{"x"}, []Mention{{"u", "h.example"}}},
	}
	r := testRenderer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Note(tt.in)
			if !reflect.DeepEqual(res.Tags, tt.tags) {
				t.Errorf("Note(%q).Tags: got %q; want %q", tt.in, res.Tags, tt.tags)
			}
			if !reflect.DeepEqual(res.Mentions, tt.mentions) {
				t.Errorf("Note(%q).Mentions: got %v; want %v", tt.in, res.Mentions, tt.mentions)
			}
		})
	}
}

func TestMentionAcct(t *testing.T) {
	t.Parallel()
	if got, want := (Mention{User: "alice", Host: "example.com"}).Acct(), "alice@example.com"; got != want {
		t.Errorf("Acct(): got %q; want %q", got, want)
	}
}

func TestDefaultOptions(t *testing.T) {
	t.Parallel()
	r := New(Options{})
	got := r.Note("#日本 @bob@example.com").HTML
	for _, want := range []string{
		`href="/tags/%E6%97%A5%E6%9C%AC"`,
		`href="https://example.com/@bob"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Note with default options: got %s; want it to contain %s", got, want)
		}
	}
}

func TestLinkURLsAreEscaped(t *testing.T) {
	t.Parallel()
	// Options are trusted, but their output still must not break out of
	// the attribute.
	r := New(Options{
		TagURL:     func(tag string) string { return `/t/"><script>` + tag },
		MentionURL: func(user, host string) string { return `/m/"` + user },
	})
	got := r.Note("#x @u@h.example").HTML
	want := `<p><a href="/t/&#34;&gt;&lt;script&gt;x" class="mention hashtag" rel="tag">#<span>x</span></a> ` +
		`<span class="h-card"><a href="/m/&#34;u" class="u-url mention">@<span>u</span></a></span></p>`
	if got != want {
		t.Errorf("Note with hostile option URLs\n got %s\nwant %s", got, want)
	}
}

func TestZeroRenderer(t *testing.T) {
	t.Parallel()
	var r Renderer
	got := r.Note("#go").HTML
	want := `<p><a href="/tags/go" class="mention hashtag" rel="tag">#<span>go</span></a></p>`
	if got != want {
		t.Errorf("zero Renderer Note(%q)\n got %s\nwant %s", "#go", got, want)
	}
	if got := r.Article("*hi*").HTML; !strings.Contains(got, "<em>hi</em>") {
		t.Errorf("zero Renderer Article(%q): got %s; want <em>hi</em>", "*hi*", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	// One Renderer serves every request in a long-running server; lazy
	// initialisation must be race-free (run with -race).
	r := testRenderer()
	done := make(chan Result)
	for i := 0; i < 8; i++ {
		go func() {
			Sanitize("<p>x</p>", ArticlePolicy())
			r.Note("#a @b@c.example https://d.example")
			done <- r.Article("# T\n\n#a @b@c.example")
		}()
	}
	for i := 0; i < 8; i++ {
		if res := <-done; !reflect.DeepEqual(res.Tags, []string{"a"}) {
			t.Errorf("concurrent Article Tags: got %q; want [a]", res.Tags)
		}
	}
}
