package post

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/store"
)

// MaxSlug is murlog.MaxSlug.
const MaxSlug = murlog.MaxSlug

// reservedSlugs collide with the addresses under /@name/ that are not
// posts (the feeds have a dot, which no slug has), or are kept for the
// files the public site will be written as (index).
var reservedSlugs = map[string]bool{
	"activities": true, "api": true, "atom": true, "feed": true, "featured": true, "followers": true,
	"following": true, "inbox": true, "index": true, "main-key": true, "media": true, "outbox": true,
	"replies": true, "rss": true, "search": true, "sitemap": true, "tags": true,
}

// latinLetters are the Latin letters that compatibility decomposition
// leaves alone, spelt in ASCII as WordPress's remove_accents spells them.
var latinLetters = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ł': "l", 'Ł': "l",
	'ı': "i", 'ħ': "h", 'Ħ': "h", 'ŧ': "t", 'Ŧ': "t",
}

// Slugify returns the slug a title gives, as WordPress and Ghost make
// them: Latin letters lose their accents and case ("Café Ü" → "cafe-u"),
// full-width forms become ASCII, letters of other scripts stay as they
// are, lower-cased (Japanese keeps its kana and kanji: the address is an
// IRI, its path percent-encoded on the wire), digits stay, apostrophes go,
// and every other run of characters — spaces, punctuation, symbols, emoji
// — becomes one hyphen. At most MaxSlug bytes, cut at a hyphen when one is
// near the end. "" when nothing is left (an emoji-only title): the
// article then keeps its id address. Slugify(Slugify(s)) == Slugify(s).
//
// web/spa/src/screens/compose/slug.ts is the same function for the
// composer's live value; post/testdata/slugs.json is the table both pass.
func Slugify(title string) string {
	var b strings.Builder
	sep, latin := false, false
	for _, r := range norm.NFKD.String(title) {
		switch {
		case r == '\'' || r == '’':
			continue
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc):
			if latin || b.Len() == 0 || sep {
				continue // an accent of a Latin letter, or a mark with no letter
			}
			b.WriteRune(r)
			continue
		}
		latin = unicode.Is(unicode.Latin, r)
		s, ok := latinLetters[r]
		switch {
		case ok:
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			s = string(r)
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			s = string(r + 'a' - 'A')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			s = string(unicode.ToLower(r))
		default:
			sep, latin = b.Len() > 0, false
			continue
		}
		if sep {
			b.WriteByte('-')
			sep = false
		}
		b.WriteString(s)
	}
	return cutSlug(norm.NFC.String(b.String()), MaxSlug)
}

// cutSlug shortens s to at most n bytes on a character boundary, at the
// last hyphen when it falls in the second half (a whole word is dropped
// rather than cut), without a trailing hyphen.
func cutSlug(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if s[i] != '-' {
		if h := strings.LastIndexByte(s[:i], '-'); h > n/2 {
			i = h
		}
	}
	return strings.TrimRight(s[:i], "-")
}

// Reserved reports whether slug may not be used: it is an address under
// /@name/ that is not a post, or shaped like a post id (/@name/<id> is the
// post's stable address).
func Reserved(slug string) bool {
	if reservedSlugs[slug] {
		return true
	}
	_, err := uuid.Parse(slug) // 36 characters with hyphens, or 32 hex digits
	return err == nil
}

// CheckSlug validates a slug the owner chose: it must be what Slugify
// gives for it (lower case, letters, digits and single hyphens, no
// accents on Latin letters), at most MaxSlug bytes, and not Reserved.
func CheckSlug(slug string) error {
	if len(slug) > MaxSlug {
		return murlog.Invalid("slug", "is %d bytes; a slug may have at most %d (a Latin letter is 1, a kanji 3)", len(slug), MaxSlug)
	}
	if want := Slugify(slug); want != slug {
		if want == "" {
			return murlog.Invalid("slug", "must be lower-case letters, digits and hyphens; %q has none", slug)
		}
		return murlog.Invalid("slug", "must be lower-case letters, digits and single hyphens, with no accents or spaces: %q, for example", want)
	}
	if Reserved(slug) {
		return murlog.Invalid("slug", "%q is reserved: it is an address under /@name/ or has the shape of a post id", slug)
	}
	return nil
}

// uniqueSlug returns base when it is free, else base-2, base-3 … (the
// base shortened so the suffix fits MaxSlug), the first that is neither
// taken nor reserved.
func uniqueSlug(base string, taken func(string) bool) string {
	if !taken(base) && !Reserved(base) {
		return base
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		s := cutSlug(base, MaxSlug-len(suffix)) + suffix
		if !taken(s) && !Reserved(s) {
			return s
		}
	}
}

// MaxOldSlugs is how many earlier slugs of one article keep leading to
// it; past that a rename forgets the oldest.
const MaxOldSlugs = 20

// settleSlug decides p's slug inside the write transaction, where no
// other write can take it meanwhile: chosen is true when the owner gave
// p.Slug. A chosen slug another post of the persona has is a conflict (one
// that is only another post's old slug is taken from it). An article
// without one gets one made from its title once it is published or
// scheduled — the first free of base, base-2, base-3 … — and keeps it
// when the title changes: the address stays. The slug it had before (was)
// becomes an old slug, leading to the new one.
func settleSlug(tx store.Tx, p *murlog.Post, was string, chosen bool) error {
	if p.Kind != murlog.KindArticle {
		return nil
	}
	posts := tx.Posts()
	switch {
	case chosen && p.Slug != was:
		id, old, err := posts.SlugOwner(p.PersonaID, p.Slug)
		switch {
		case err == nil && !old && id != p.ID:
			return &murlog.Error{Code: murlog.EConflict, Field: "slug", Message: "another post of this persona has the slug " + strconv.Quote(p.Slug)}
		case err != nil && murlog.ErrorCode(err) != murlog.ENotFound:
			return err
		}
	case p.Slug == "" && p.PublishedAt != nil:
		base := Slugify(p.Title)
		if base == "" {
			break // nothing to make one of: the address stays /@name/<id>
		}
		taken, err := posts.TakenSlugs(p.PersonaID, base)
		if err != nil {
			return err
		}
		var ownerErr error
		p.Slug = uniqueSlug(base, func(s string) bool {
			if !taken[s] {
				return false
			}
			// The post's own earlier slug is free for it again.
			id, _, err := posts.SlugOwner(p.PersonaID, s)
			if err != nil && ownerErr == nil {
				ownerErr = err
			}
			return err != nil || id != p.ID
		})
		if ownerErr != nil {
			return ownerErr
		}
	}
	if p.Slug == was {
		return nil
	}
	if p.Slug != "" {
		if err := posts.DropOldSlug(p.PersonaID, p.Slug); err != nil {
			return err
		}
	}
	if was != "" {
		return posts.KeepOldSlug(p.PersonaID, was, p.ID, tx.Now(), MaxOldSlugs)
	}
	return nil
}
