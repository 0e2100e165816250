// An article's slug, as the server makes it (post/slug.go, Slugify): the
// composer shows the address the title gives while it is typed, and checks
// a slug the owner writes before sending. post/testdata/slugs.json is the
// table both implementations pass.

/** The longest slug, in bytes of UTF-8 (100 Latin letters, 33 kanji). */
export const MAX_SLUG = 100;

/** Words under /@name/ that are not posts; anything shaped like a post id is refused too. */
export const RESERVED: readonly string[] = [
  'activities', 'api', 'atom', 'feed', 'featured', 'followers', 'following', 'inbox', 'index', 'main-key', 'media',
  'outbox', 'replies', 'rss', 'search', 'sitemap', 'tags',
];

// Latin letters that compatibility decomposition leaves alone.
const LATIN_LETTERS: Record<string, string> = {
  'ß': 'ss', 'ẞ': 'ss', 'æ': 'ae', 'Æ': 'ae', 'œ': 'oe', 'Œ': 'oe', 'ø': 'o', 'Ø': 'o',
  'đ': 'd', 'Đ': 'd', 'ð': 'd', 'Ð': 'd', 'þ': 'th', 'Þ': 'th', 'ł': 'l', 'Ł': 'l',
  'ı': 'i', 'ħ': 'h', 'Ħ': 'h', 'ŧ': 't', 'Ŧ': 't',
};

const MARK = /^\p{M}$/u;
const LATIN = /^\p{Script=Latin}$/u;
const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;
const encoder = new TextEncoder();

function bytes(s: string): number {
  return encoder.encode(s).length;
}

/**
 * The slug a title gives: Latin letters without accents and in lower case,
 * full-width forms as ASCII, other scripts as written (lower-cased), digits,
 * apostrophes dropped, every other run of characters one hyphen; at most
 * MAX_SLUG bytes. "" when nothing is left.
 */
export function slugify(title: string): string {
  let out = '';
  let sep = false;
  let latin = false;
  for (const c of title.normalize('NFKD')) {
    if (c === "'" || c === '\u2019') continue;
    if (MARK.test(c)) {
      if (!latin && out !== '' && !sep) out += c;
      continue;
    }
    latin = LATIN.test(c);
    let s = LATIN_LETTERS[c];
    if (s === undefined) {
      if (c >= 'a' && c <= 'z' || c >= '0' && c <= '9') s = c;
      else if (c >= 'A' && c <= 'Z') s = c.toLowerCase();
      else if (LETTER_OR_DIGIT.test(c)) s = c.toLowerCase();
      else {
        sep = out !== '';
        latin = false;
        continue;
      }
    }
    if (sep) {
      out += '-';
      sep = false;
    }
    out += s;
  }
  return cut(out.normalize('NFC'), MAX_SLUG);
}

// cut shortens s to at most n bytes on a character boundary, at the last
// hyphen when it falls in the second half, without a trailing hyphen.
function cut(s: string, n: number): string {
  if (bytes(s) <= n) return s;
  const chars = [...s];
  let i = 0; // characters kept
  let size = 0; // their bytes
  let hyphen = -1; // characters before the last hyphen kept
  let hyphenAt = -1; // its byte offset
  while (i < chars.length && size + bytes(chars[i]!) <= n) {
    if (chars[i] === '-') {
      hyphen = i;
      hyphenAt = size;
    }
    size += bytes(chars[i]!);
    i++;
  }
  if (chars[i] !== '-' && hyphenAt > Math.floor(n / 2)) i = hyphen;
  return chars.slice(0, i).join('').replace(/-+$/, '');
}

const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;

export type SlugProblem = 'slug_long' | 'slug_invalid' | 'slug_reserved';

/** Why a slug the owner wrote would be refused, or null. "" is fine: the server makes one. */
export function slugProblem(slug: string): SlugProblem | null {
  if (slug === '') return null;
  if (bytes(slug) > MAX_SLUG) return 'slug_long';
  if (slugify(slug) !== slug) return 'slug_invalid';
  if (RESERVED.includes(slug) || UUID.test(slug)) return 'slug_reserved';
  return null;
}
