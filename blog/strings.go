package blog

import "strings"

// The interface words of the themes ({{t.key}}), in English and Japanese.
// Every key listed in the plan is in both tables (a test checks),
// and the search and error pages add their own few.
var stringsEN = Strings{
	"recent_posts":       "Recent posts",
	"popular_posts":      "Popular posts",
	"older":              "Older",
	"newer":              "Newer",
	"next_page":          "Next page",
	"first_page":         "First page",
	"newest_first":       "Newest first",
	"oldest_first":       "Oldest first",
	"rich":               "Full posts",
	"plain":              "List",
	"kwic":               "In context",
	"search":             "Search",
	"search_placeholder": "Search this site",
	"search_results":     "Search results",
	"tags":               "Tags",
	"profile":            "Profile",
	"share":              "Share",
	"posts":              "Posts",
	"followers":          "Followers",
	"following":          "Following",
	"powered_by":         "Powered by",
	"feed":               "Feed",
	"no_posts":           "No posts yet.",
	"no_hits":            "Nothing matched your search.",
	"content_warning":    "Content warning",
	"show_more":          "Show more",
	"home":               "Home",
	"page_not_found":     "Page not found",
	"gone":               "This post was deleted",
	"published":          "Published",
	"updated":            "Updated",

	"page_not_found_message": "There is no page at this address. It may have moved, or the link may be mistyped.",
	"gone_message":           "The author deleted this post. It is no longer available.",
	"unavailable":            "Temporarily unavailable",
	"unavailable_message":    "The site cannot answer this right now. Please try again in a few minutes.",
	"search_too_long":        "This search is too long: use at most 200 characters.",
	"search_too_many_words":  "This search has too many words: use at most 8.",
	"search_not_text":        "This search cannot be run: it holds control characters or is not valid text.",
	"search_too_expensive":   "This search is too expensive to run: narrow it with longer or less common words.",
	"hatena":                 "Hatena Bookmark",
}

var stringsJA = Strings{
	"recent_posts":       "最近の投稿",
	"popular_posts":      "人気の投稿",
	"older":              "前の投稿",
	"newer":              "次の投稿",
	"next_page":          "次のページ",
	"first_page":         "最初のページ",
	"newest_first":       "新しい順",
	"oldest_first":       "古い順",
	"rich":               "本文",
	"plain":              "一覧",
	"kwic":               "文脈",
	"search":             "検索",
	"search_placeholder": "このサイトを検索",
	"search_results":     "検索結果",
	"tags":               "タグ",
	"profile":            "プロフィール",
	"share":              "シェア",
	"posts":              "投稿",
	"followers":          "フォロワー",
	"following":          "フォロー",
	"powered_by":         "Powered by",
	"feed":               "フィード",
	"no_posts":           "まだ投稿はありません。",
	"no_hits":            "検索に一致する投稿はありませんでした。",
	"content_warning":    "閲覧注意",
	"show_more":          "続きを表示",
	"home":               "ホーム",
	"page_not_found":     "ページが見つかりません",
	"gone":               "この投稿は削除されました",
	"published":          "公開",
	"updated":            "更新",

	"page_not_found_message": "このアドレスにページはありません。移動したか、リンクが間違っている可能性があります。",
	"gone_message":           "この投稿は作者によって削除されました。",
	"unavailable":            "一時的に利用できません",
	"unavailable_message":    "ただいまこのページを表示できません。数分後にもう一度お試しください。",
	"search_too_long":        "検索語が長すぎます。200文字以内にしてください。",
	"search_too_many_words":  "検索語が多すぎます。8語以内にしてください。",
	"search_not_text":        "この検索語では検索できません。制御文字を含むか、正しい文字列ではありません。",
	"search_too_expensive":   "この検索は負荷が大きすぎるため実行できません。より長い語や珍しい語で絞り込んでください。",
	"hatena":                 "はてなブックマーク",
}

// pageLang is the page language of a site_language setting: Japanese for
// any "ja…" tag, English otherwise.
func pageLang(setting string) string {
	if strings.HasPrefix(strings.ToLower(setting), "ja") {
		return "ja"
	}
	return "en"
}

// stringsFor returns the interface words of a page language. The tables
// are shared and never written.
func stringsFor(lang string) Strings {
	if lang == "ja" {
		return stringsJA
	}
	return stringsEN
}
