package blog

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/store"
)

// Search limits: the longest query (characters), the most distinct words
// it may have, and the KWIC lines per result. A query over a limit is
// refused with a 400, not cut: a cut query would search for something
// the reader did not write.
const (
	MaxQuery     = 200
	MaxTerms     = 8
	kwicWidth    = 40
	kwicMaxLines = 3
	// kwicScan is how much of a post's text KWIC lines are looked for
	// in: a page of 20 articles of 100,000 characters each would cost
	// more to scan than its search did.
	kwicScan = 20_000
)

// parseQuery trims a search query, checks it and splits it into terms on
// any white space (the ideographic space U+3000 included), dropping
// repeated words. It returns the query as shown in the form, the terms,
// and the string key of the reason it cannot be searched ("" when it
// can): text that is not UTF-8, control characters (NUL among them;
// white space such as a tab only separates words), more than MaxQuery
// characters or more than MaxTerms words. A refused query is shown with
// U+FFFD for what cannot be shown, and its first MaxQuery characters
// only. Terms are literal text: the store quotes them, so FTS syntax
// ("", NEAR, *) is searched for as written.
func parseQuery(q string) (shown string, terms []string, refused string) {
	q = strings.TrimSpace(q)
	if !utf8.ValidString(q) || strings.ContainsFunc(q, notText) {
		return showRefused(strings.Map(func(r rune) rune {
			if notText(r) {
				return utf8.RuneError
			}
			return r
		}, strings.ToValidUTF8(q, string(utf8.RuneError)))), nil, "search_not_text"
	}
	if utf8.RuneCountInString(q) > MaxQuery {
		return showRefused(q), nil, "search_too_long"
	}
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(q, unicode.IsSpace) {
		k := strings.ToLower(f)
		if seen[k] {
			continue
		}
		if len(terms) == MaxTerms {
			return q, nil, "search_too_many_words"
		}
		seen[k] = true
		terms = append(terms, f)
	}
	return q, terms, ""
}

// notText reports a character a query cannot hold: a control character
// that is not white space.
func notText(r rune) bool { return murlog.IsControl(r) && !unicode.IsSpace(r) }

// showRefused is a refused query as the form shows it again: its first
// MaxQuery characters.
func showRefused(q string) string {
	if utf8.RuneCountInString(q) <= MaxQuery {
		return q
	}
	return string([]rune(q)[:MaxQuery])
}

// searchMode is a search page's mode: KWIC unless rich or plain is asked.
func searchMode(m string) string {
	switch m {
	case ModeRich, ModePlain:
		return m
	}
	return ModeKWIC
}

// SearchPage loads a persona's search page ("" for the primary's at
// /search). No query gives the form alone; a cursor the store refuses
// reads as the first page. A query that cannot be searched, or whose
// search ran past the store's budget, gives the form again with the
// reason, served as a 400 (Page.Status).
func (l *Loader) SearchPage(ctx context.Context, username, q, mode, after string) (*Page, error) {
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		s, missing, err := l.openPage(tx, username)
		if s == nil {
			page = missing
			return err
		}
		mode := searchMode(mode)
		shown, terms, refused := parseQuery(q)
		page = l.base(s, "search")
		action := l.searchURL(s)
		sv := &SearchView{Query: shown, Action: action, Empty: len(terms) == 0}
		page.Search = sv
		keep := url.Values{}
		if shown != "" {
			keep.Set("q", shown)
		}
		page.Mode = modeView(action, keep, mode, false, true)
		if refused == "" && !sv.Empty {
			refused, err = l.searchResults(s, page, terms, mode, action, keep, after)
			if err != nil {
				return err
			}
		}
		if refused != "" {
			sv.Refused, sv.Empty, sv.Notice = true, true, s.t[refused]
			page.Posts, page.Pager = nil, nil
		}
		page.Meta = l.meta(s, page, "search", nil, "", "", "", action)
		noindex(&page.Meta)
		l.finish(page)
		return nil
	})
	return page, err
}

// searchResults fills page with a page of hits. It returns the string key
// of the refusal when the store found the search too expensive.
func (l *Loader) searchResults(s *scope, page *Page, terms []string, mode, action string, keep url.Values, after string) (string, error) {
	sq := store.SearchQuery{PersonaID: s.persona.ID, Terms: terms, Now: s.now, After: after, Limit: pageSize(mode) + 1,
		Budget: l.SearchBudget}
	posts, err := s.tx.PublicPosts().Search(sq)
	if murlog.ErrorCode(err) == murlog.EInvalid && sq.After != "" && !errors.Is(err, store.ErrSearchTooExpensive) {
		sq.After = ""
		posts, err = s.tx.PublicPosts().Search(sq)
	}
	if errors.Is(err, store.ErrSearchTooExpensive) {
		return "search_too_expensive", nil
	}
	if err != nil {
		return "", err
	}
	more := len(posts) > pageSize(mode)
	if more {
		posts = posts[:pageSize(mode)]
	}
	page.Search.NoHits = len(posts) == 0
	page.Posts = l.postViews(s, posts, mode)
	if mode == ModeKWIC {
		for i, p := range posts {
			page.Posts[i].KWIC = kwic(p, terms, s.info.Vertical)
		}
	}
	page.Pager = l.pager(s, action, keep, mode, false, sq.After, posts, more)
	if page.Pager != nil {
		page.Pager.NewestURL, page.Pager.OldestURL = "", "" // results come newest first only
	}
	return "", nil
}

// kwic returns the lines of a post's text around its matches: from the
// body (its first kwicScan characters), or from the title when only the
// title matched there. The two are never read as one text: a line
// running from the title into the body would show them glued together as
// if one sentence, and the title is the result's heading already.
func kwic(p *murlog.Post, terms []string, vertical bool) []KWICLine {
	hits := markup.KWICOf(p.Content, terms, kwicWidth, kwicMaxLines, kwicScan)
	if len(hits) == 0 && p.Title != "" {
		hits = markup.KWIC(p.Title, terms, kwicWidth, kwicMaxLines)
	}
	if len(hits) == 0 {
		return nil
	}
	out := make([]KWICLine, len(hits))
	for i, h := range hits {
		out[i] = KWICLine{Before: h.Before, Match: h.Match, After: h.After}
		if vertical {
			out[i] = KWICLine{markupV(h.Before), markupV(h.Match), markupV(h.After)}
		}
	}
	return out
}

func markupV(s string) string { return markup.VerticalText(s) }
