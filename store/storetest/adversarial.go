package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// AdversarialRuns are the texts of the adversarial site of the search
// benchmarks: long runs of one letter or pattern just short of the
// longest query (so that a query of 200 such letters finds every trigram
// and no match), in ASCII, in Japanese (no case) and in Cyrillic with
// capitals (the slow path of case folding); Japanese prose with capital
// Latin words; random base64 (many distinct trigrams). Each makes a text
// of n characters.
var AdversarialRuns = []func(rng *rand.Rand, n int) string{
	func(_ *rand.Rand, n int) string { return runOf(n, strings.Repeat("x", 199)+"y") },
	func(_ *rand.Rand, n int) string { return runOf(n, strings.Repeat("ab", 99)+"c") },
	func(_ *rand.Rand, n int) string { return runOf(n, strings.Repeat("ー", 199)+"。") },
	func(_ *rand.Rand, n int) string { return runOf(n, "Ж"+strings.Repeat("ж", 198)+" ") },
	func(rng *rand.Rand, n int) string {
		words := strings.Fields("今日は 東京で 美味しい ご飯を 食べた。 雨が 降っている。 新しい 本を 読んだ。 電車が 遅れた。 " +
			"the quick brown fox jumps over lazy dog while writing some notes about servers and federation indexes")
		var rs []rune
		for len(rs) < n {
			rs = append(rs, []rune(words[rng.IntN(len(words))])...)
			if rng.IntN(4) == 0 {
				rs = append(rs, []rune(" ActivityPub SQLite ")...)
			}
		}
		return string(rs[:n])
	},
	func(rng *rand.Rand, n int) string {
		const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		b := make([]byte, n)
		for i := range b {
			b[i] = b64[rng.IntN(len(b64))]
		}
		return string(b)
	},
}

func runOf(n int, unit string) string {
	u := []rune(unit)
	out := make([]rune, n)
	for i := range out {
		out[i] = u[i%len(u)]
	}
	return string(out)
}

// AdversarialSize makes notes of 3,000 characters (the longest a note may
// be), every tenth post an article of 20,000 and every hundredth one of
// 100,000 (the longest an article may be).
func AdversarialSize(i int) int {
	switch {
	case i%100 == 0:
		return 100_000
	case i%10 == 0:
		return 20_000
	}
	return 3000
}

// SeedAdversarial writes n public posts of a new persona (primary when
// it is the first) into s in one transaction, post i of runs[i%len(runs)] and size(i)
// characters (an article when over 3,000), published a minute apart
// before now, and returns the persona.
func SeedAdversarial(tb testing.TB, s store.Store, now time.Time, username string, n int, runs []func(*rand.Rand, int) string, size func(int) int) *murlog.Persona {
	tb.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var per *murlog.Persona
	err := s.Update(context.Background(), func(tx store.Tx) error {
		_, err := tx.Personas().Primary()
		per = NewPersona(username, murlog.ErrorCode(err) == murlog.ENotFound, now)
		if err := tx.Personas().Create(per); err != nil {
			return err
		}
		for i := range n {
			pub := now.Add(-time.Duration(n-i) * time.Minute)
			p := NewPost(per.ID, &pub, murlog.VisibilityPublic, now)
			size := size(i)
			if size > 3000 {
				p.Kind, p.Title = murlog.KindArticle, fmt.Sprintf("Article %d", i)
			}
			p.Source = runs[i%len(runs)](rng, size)
			p.Content = "<p>" + p.Source + "</p>"
			p.Excerpt = string([]rune(p.Source)[:murlog.ExcerptLen]) // plain text already
			if err := tx.Posts().Create(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return per
}

// CraftedSearches are the searches made to cost the most on the
// adversarial site: every trigram and no match, short terms the index
// cannot narrow, many terms, common words.
var CraftedSearches = []struct {
	Name string
	Q    string
}{
	{"200 x, every trigram, no match", strings.Repeat("x", 200)},
	{"200 ー, every trigram, no match", strings.Repeat("ー", 200)},
	{"200 ab, every trigram, no match", strings.Repeat("ab", 100)},
	{"200 ж, capitals folded, no match", strings.Repeat("ж", 200)},
	{"two short terms never together", "x ж"},
	{"eight short terms never together", "x ж ー ab y c 。 Ж"},
	{"eight terms of x runs", strings.Repeat("x", 22) + "a " + strings.Repeat("x", 21) + "b " + strings.Repeat("x", 20) + "c " +
		strings.Repeat("x", 19) + "d " + strings.Repeat("x", 18) + "e " + strings.Repeat("x", 17) + "f " + strings.Repeat("x", 16) + "g " +
		strings.Repeat("x", 15) + "h"},
	{"eight common words", "ActivityPub SQLite federation ご飯を食べた indexes servers writing 電車が遅れた"},
	{"one common word", "activitypub"},
	{"a base64 run", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"},
}
