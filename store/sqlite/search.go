package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
	"modernc.org/sqlite"
)

// Site search runs in two steps, each bounded:
//
//  1. The trigram index narrows the posts to those holding every distinct
//     trigram of the terms (at most maxTrigrams of each term), as single
//     tokens joined by AND. A single token needs no position lists, so the
//     index answers from its doclists alone. (A phrase of N trigrams costs
//     FTS5 N passes over each candidate's position lists: a 200-character
//     run of one letter against posts made of such runs took seconds.)
//  2. matchFunc checks each remaining post, newest first, for every term
//     as a case-folded substring of its title or its source, in time
//     linear in the post's length, until the page is full.
//
// The whole of it runs in the first step of one statement (an aggregate
// over the page's ids), under a context that ends at the query's budget:
// the driver then interrupts SQLite (sqlite3_interrupt and its progress
// handler), and the search answers store.ErrSearchTooExpensive. The posts
// of the page are read by id afterwards.
const (
	minTrigram  = 3  // the shortest term the trigram index can find
	maxTrigrams = 12 // distinct trigrams of one term sent to the index
)

// defaultSearchBudget is store.SearchBudget, scaled for -race builds.
const defaultSearchBudget = store.SearchBudget * raceSlowdown

// matchFunc is the SQL name of searchMatch.
const matchFunc = "murlog_search_match"

// termSep joins the folded terms into matchFunc's one argument (the
// driver passes text up to a NUL, so not that). Search refuses terms
// holding control characters, this one among them.
const termSep = "\x1f"

func init() {
	// Registered with the driver before any connection opens; pure, so it
	// is no state shared between databases.
	sqlite.MustRegisterDeterministicScalarFunction(matchFunc, 3, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		title, _ := args[0].(string)
		source, _ := args[1].(string)
		terms, _ := args[2].(string)
		return searchMatch(title, source, strings.Split(terms, termSep)), nil
	})
}

// Search finds listed posts holding every term (see above).
func (r publicPosts) Search(q store.SearchQuery) ([]*murlog.Post, error) {
	if q.Limit <= 0 {
		return nil, murlog.Invalid("limit", "must be positive")
	}
	terms, tris, err := searchTerms(q.Terms)
	if err != nil {
		return nil, err
	}
	now := micros(q.Now)
	c, err := r.cursorKey(q.After, now)
	if err != nil {
		return nil, err
	}
	where := "SELECT id FROM posts WHERE " + listed
	args := []any{now}
	if q.PersonaID != "" {
		where += " AND persona_id = ?"
		args = append(args, q.PersonaID)
	}
	if len(tris) > 0 {
		where += ` AND id IN (SELECT s.post_id FROM post_search_ids s
			WHERE s.rowid IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?))`
		args = append(args, strings.Join(tris, " AND "))
	}
	where += " AND " + matchFunc + "(title, source, ?)"
	args = append(args, strings.Join(terms, termSep))
	inner, args := page(where, args, 0, postsKey, c, false, q.Limit)

	budget := q.Budget
	if budget <= 0 {
		budget = defaultSearchBudget
	}
	ctx, cancel := context.WithTimeout(r.t.ctx, budget)
	defer cancel()
	var ids string
	err = r.t.queryRowContext(ctx, "SELECT json_group_array(id) FROM ("+inner+")", args, &ids)
	if errors.Is(err, context.DeadlineExceeded) && r.t.ctx.Err() == nil {
		return nil, store.ErrSearchTooExpensive
	}
	if err != nil {
		return nil, err
	}
	return manyPosts(r.t, q.Limit, "SELECT "+publicCols+" FROM posts WHERE id IN (SELECT value FROM json_each(?))"+
		" ORDER BY published_at DESC, id DESC", ids)
}

// searchTerms folds and checks the terms and picks the trigrams sent to
// the index: a term's distinct trigrams, or maxTrigrams of them spread
// over it. Terms shorter than a trigram are only matched.
func searchTerms(in []string) (terms, tris []string, err error) {
	var f murlog.Folder
	seen := map[string]bool{}
	for _, t := range in {
		if !utf8.ValidString(t) || strings.ContainsFunc(t, murlog.IsControl) {
			return nil, nil, murlog.Invalid("q", "a search term must be text without control characters")
		}
		t = f.Fold(t)
		if t == "" {
			continue
		}
		terms = append(terms, t)
		rs := []rune(t)
		var own []string
		for i := 0; i+minTrigram <= len(rs); i++ {
			g := string(rs[i : i+minTrigram])
			if !seen[g] {
				seen[g] = true
				own = append(own, g)
			}
		}
		if len(own) > maxTrigrams {
			spread := make([]string, maxTrigrams)
			for i := range spread {
				spread[i] = own[i*(len(own)-1)/(maxTrigrams-1)]
			}
			own = spread
		}
		for _, g := range own {
			tris = append(tris, `"`+strings.ReplaceAll(g, `"`, `""`)+`"`)
		}
	}
	if len(terms) == 0 {
		return nil, nil, murlog.Invalid("q", "no search terms")
	}
	return terms, tris, nil
}

// searchMatch reports whether every folded term occurs in title or source,
// both lowered rune by rune with unicode.ToLower (murlog.Folder; the
// trigram index folds case the same way for what it finds). Each text is folded at most once, and only
// for a term that has case: a term of kana, kanji, digits or punctuation
// is looked for as it is.
func searchMatch(title, source string, terms []string) bool {
	var f murlog.Folder
	var lt, ls string
	folded := false
	for _, t := range terms {
		if t == "" {
			continue
		}
		if !hasCase(t) {
			if !strings.Contains(title, t) && !strings.Contains(source, t) {
				return false
			}
			continue
		}
		if !folded {
			lt, ls, folded = f.Fold(title), f.Fold(source), true
		}
		if !strings.Contains(lt, t) && !strings.Contains(ls, t) {
			return false
		}
	}
	return true
}

// hasCase reports whether s holds a letter with another case.
func hasCase(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				return true
			}
			continue
		}
		if unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}
