package blog

import (
	"context"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/markup"
	"github.com/murlog/murlog/store"
)

// Search limits: what a query is cut to (characters), how many words it
// keeps, and the KWIC lines per result.
const (
	MaxQuery     = 200
	MaxTerms     = 8
	kwicWidth    = 40
	kwicMaxLines = 3
)

// parseQuery trims and bounds a search query and splits it into terms on
// any white space (the ideographic space U+3000 included). It returns the
// query as shown in the form, the terms and the notice key explaining a
// cut ("" for none). Terms are literal text: the store quotes them, so
// FTS syntax ("", NEAR, *) is searched for as written.
func parseQuery(q string) (shown string, terms []string, notice string) {
	q = strings.TrimSpace(strings.ToValidUTF8(q, ""))
	if utf8.RuneCountInString(q) > MaxQuery {
		q, notice = strings.TrimSpace(string([]rune(q)[:MaxQuery])), "search_shortened"
	}
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(q, unicode.IsSpace) {
		k := strings.ToLower(f)
		if seen[k] {
			continue
		}
		if len(terms) == MaxTerms {
			if notice == "" {
				notice = "search_terms_dropped"
			}
			break
		}
		seen[k] = true
		terms = append(terms, f)
	}
	return q, terms, notice
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
// reads as the first page. No input gives an error page.
func (l *Loader) SearchPage(ctx context.Context, username, q, mode, after string) (*Page, error) {
	var page *Page
	err := l.view(ctx, func(tx store.Tx) error {
		s, missing, err := l.openPage(tx, username)
		if s == nil {
			page = missing
			return err
		}
		mode := searchMode(mode)
		shown, terms, notice := parseQuery(q)
		page = l.base(s, "search")
		action := l.searchURL(s)
		sv := &SearchView{Query: shown, Action: action, Empty: len(terms) == 0}
		if notice != "" {
			sv.Notice = s.t[notice]
		}
		page.Search = sv
		keep := url.Values{}
		if shown != "" {
			keep.Set("q", shown)
		}
		page.Mode = modeView(action, keep, mode, false, true)
		if !sv.Empty {
			sq := store.SearchQuery{PersonaID: s.persona.ID, Terms: terms, Now: s.now, After: after, Limit: pageSize(mode) + 1}
			posts, err := tx.PublicPosts().Search(sq)
			if murlog.ErrorCode(err) == murlog.EInvalid && sq.After != "" {
				sq.After = ""
				posts, err = tx.PublicPosts().Search(sq)
			}
			if err != nil {
				return err
			}
			more := len(posts) > pageSize(mode)
			if more {
				posts = posts[:pageSize(mode)]
			}
			sv.NoHits = len(posts) == 0
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
		}
		page.Meta = l.meta(s, page, "search", nil, "", "", "", action)
		noindex(&page.Meta)
		l.finish(page)
		return nil
	})
	return page, err
}

// kwic returns the lines of a post's text around its matches.
func kwic(p *murlog.Post, terms []string, vertical bool) []KWICLine {
	text := markup.PlainText(p.Content)
	if p.Title != "" {
		text = p.Title + " " + text
	}
	hits := markup.KWIC(text, terms, kwicWidth, kwicMaxLines)
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
