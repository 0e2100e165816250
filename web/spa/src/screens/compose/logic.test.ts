import { describe, expect, it } from 'vitest';
import {
  clearDraft, counter, countChars, DEFAULT_LIMITS, defaultSchedule, DRAFT_KEY, isoToLocal, loadDraft, parseLocal,
  postParams, problems, saveDraft, scheduleToISO, sendDisabled, timeZoneLabel, withSlug, withTitle, type Form, type Preview,
} from './logic';

const form = (over: Partial<Form> = {}): Form => ({
  kind: 'note', title: '', content: 'hello', summary: '', sensitive: false, visibility: 'public', language: '',
  when: 'now', scheduleAt: '2030-01-02T03:04', slug: '', slugTouched: false, slugSaved: '', page: false, ...over,
});
const preview = (over: Partial<Preview> = {}): Preview => ({ kind: 'note', content: 'hello', title: '', html: '<p>hello</p>', chars: 5, limit: 3000, ...over });

describe('counter and the send rule', () => {
  it('counts code points, as the server does', () => {
    expect(countChars('日本語')).toBe(3);
    expect(countChars('👍🏽')).toBe(2);
    expect(countChars('a\nb')).toBe(3);
  });

  it("uses posts.preview's chars and limit for the current text", () => {
    const c = counter(form({ content: 'hello' }), preview({ chars: 3001, limit: 3000 }), DEFAULT_LIMITS);
    expect(c).toEqual({ chars: 3001, limit: 3000, over: true, exact: true });
  });

  it("counts in the browser against site.info's limit before the first preview", () => {
    const limits = { ...DEFAULT_LIMITS, note_chars: 10 };
    expect(counter(form({ content: '12345678901' }), null, limits)).toEqual({ chars: 11, limit: 10, over: true, exact: false });
    expect(counter(form({ content: '1234567890' }), null, limits).over).toBe(false);
    expect(counter(form({ kind: 'article', content: 'x' }), null, limits).limit).toBe(100000);
  });

  it('keeps the last preview\'s limit while the text changes, but not across kinds', () => {
    const p = preview({ content: 'old', limit: 500 });
    expect(counter(form({ content: 'newer' }), p, DEFAULT_LIMITS)).toEqual({ chars: 5, limit: 500, over: false, exact: false });
    expect(counter(form({ kind: 'article', content: 'newer' }), p, DEFAULT_LIMITS).limit).toBe(100000);
  });

  it('disables sending over the limit, and for a too long title or warning or a past schedule', () => {
    const now = new Date(2030, 0, 1, 12, 0);
    const ok = counter(form(), null, DEFAULT_LIMITS);
    expect(sendDisabled(problems(form(), ok, DEFAULT_LIMITS, now))).toBe(false);
    const over = { ...ok, chars: 3001, over: true };
    expect(problems(form(), over, DEFAULT_LIMITS, now)).toEqual(['over']);
    expect(sendDisabled(['over'])).toBe(true);
    expect(problems(form({ kind: 'article', title: 'x'.repeat(201) }), ok, DEFAULT_LIMITS, now)).toContain('title_long');
    expect(problems(form({ summary: 'x'.repeat(1001) }), ok, DEFAULT_LIMITS, now)).toEqual(['summary_long']);
    expect(problems(form({ when: 'schedule', scheduleAt: '2030-01-01T11:59' }), ok, DEFAULT_LIMITS, now)).toEqual(['schedule_past']);
    expect(problems(form({ when: 'schedule', scheduleAt: '' }), ok, DEFAULT_LIMITS, now)).toEqual(['schedule_invalid']);
    expect(problems(form({ when: 'schedule', scheduleAt: '2030-01-01T12:01' }), ok, DEFAULT_LIMITS, now)).toEqual([]);
    for (const p of ['title_long', 'summary_long', 'schedule_past', 'schedule_invalid'] as const) expect(sendDisabled([p])).toBe(true);
  });

  it('does not disable for an empty text or a missing title: those are said on send', () => {
    const c = counter(form({ content: ' ' }), null, DEFAULT_LIMITS);
    const found = problems(form({ kind: 'article', content: ' ', title: '' }), c, DEFAULT_LIMITS);
    expect(found).toEqual(['empty', 'title_missing']);
    expect(sendDisabled(found)).toBe(false);
  });
});

describe('schedule time', () => {
  it('turns a local datetime-local value into UTC RFC 3339', () => {
    const iso = scheduleToISO('2030-06-15T21:30')!;
    expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(new Date(iso).getTime()).toBe(new Date(2030, 5, 15, 21, 30).getTime());
    expect(isoToLocal(iso)).toBe('2030-06-15T21:30');
  });

  it('refuses what is not a date and time', () => {
    for (const v of ['', '2030-06-15', '2030-02-31T10:00', '2030-13-01T10:00', 'tomorrow']) expect(scheduleToISO(v), v).toBeNull();
    expect(parseLocal('2030-06-15T21:30:15')!.getSeconds()).toBe(15);
  });

  it('defaults to a full hour at least 30 minutes away, and names the time zone', () => {
    const now = new Date(2030, 0, 1, 10, 45);
    expect(defaultSchedule(now)).toBe('2030-01-01T12:00');
    expect(defaultSchedule(new Date(2030, 0, 1, 10, 10))).toBe('2030-01-01T11:00');
    expect(timeZoneLabel()).toMatch(/UTC[+-]\d{2}:\d{2}/);
  });
});

describe('post params', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('a new note published now omits published_at and title', () => {
    const p = postParams(form({ content: 'hi #tag' }), null, null, now);
    expect(p).toEqual({ kind: 'note', content: 'hi #tag', summary: '', sensitive: false, visibility: 'public' });
    expect('published_at' in p).toBe(false);
  });

  it('an article carries its title; a draft sends published_at null; a schedule its UTC time', () => {
    expect(postParams(form({ kind: 'article', title: ' T ', when: 'draft' }), null, null, now)).toMatchObject({ kind: 'article', title: 'T', published_at: null });
    const s = postParams(form({ when: 'schedule', scheduleAt: '2030-06-15T21:30' }), null, null, now);
    expect(s.published_at).toBe(scheduleToISO('2030-06-15T21:30'));
  });

  it('a content warning forces sensitive; language and in_reply_to go when given', () => {
    const p = postParams(form({ summary: 'spoilers', language: 'ja' }), null, 'https://remote.example/notes/1', now);
    expect(p).toMatchObject({ summary: 'spoilers', sensitive: true, language: 'ja', in_reply_to: 'https://remote.example/notes/1' });
  });

  it('an update names the post, not the kind; "now" publishes a draft at this time and keeps a published date', () => {
    const draft = postParams(form(), { id: 'p1', state: 'draft' }, 'ignored', now);
    expect(draft).toMatchObject({ id: 'p1', published_at: '2030-01-01T00:00:00Z', language: '' });
    expect('kind' in draft).toBe(false);
    expect('in_reply_to' in draft).toBe(false);
    const pub = postParams(form(), { id: 'p1', state: 'published' }, null, now);
    expect('published_at' in pub).toBe(false);
    expect(postParams(form({ when: 'draft' }), { id: 'p1', state: 'published' }, null, now).published_at).toBeNull();
  });
});

describe('slug and page', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const article = (over: Partial<Form> = {}) => form({ kind: 'article', title: 'T', ...over });

  it('shows the slug the title gives while it is typed, until the owner edits it', () => {
    let f = withTitle(article(), 'Hello, World');
    expect(f.slug).toBe('hello-world');
    f = withTitle(f, 'はじめての ActivityPub');
    expect(f.slug).toBe('はじめての-activitypub');
    f = withSlug(f, 'intro');
    expect(withTitle(f, 'Another title').slug).toBe('intro');
  });

  it('keeps the slug an article already has when the title changes: its address stays', () => {
    const f = article({ slug: 'old-address', slugSaved: 'old-address' });
    expect(withTitle(f, 'A new title').slug).toBe('old-address');
  });

  it('sends a slug only when the owner wrote one, and the page flag of articles', () => {
    const shown = withTitle(article(), 'Hello');
    expect('slug' in postParams(shown, null, null, now)).toBe(false);
    expect(postParams(withSlug(shown, 'hi'), null, null, now)).toMatchObject({ slug: 'hi' });
    expect(postParams(withSlug(shown, ''), { id: 'p1', state: 'published' }, null, now)).toMatchObject({ slug: '' });
    expect(postParams(article({ page: true }), null, null, now)).toMatchObject({ page: true });
    expect('page' in postParams(article(), null, null, now)).toBe(false);
    expect(postParams(article(), { id: 'p1', state: 'published' }, null, now)).toMatchObject({ page: false });
    const note = postParams(form({ slug: 'x', slugTouched: true, page: true }), null, null, now);
    expect('slug' in note || 'page' in note).toBe(false);
  });

  it('refuses a slug the server would refuse, and a page that is not public or unlisted', () => {
    const ok = counter(form(), null, DEFAULT_LIMITS);
    const found = (f: Form) => problems(f, ok, DEFAULT_LIMITS, now);
    expect(found(withSlug(article(), 'Hello World'))).toEqual(['slug_invalid']);
    expect(found(withSlug(article(), 'search'))).toEqual(['slug_reserved']);
    expect(found(withSlug(article(), 'a'.repeat(101)))).toEqual(['slug_long']);
    expect(found(withSlug(article(), ''))).toEqual([]);
    expect(found(article({ slug: 'Not Checked' }))).toEqual([]); // not the owner's: the server makes one
    expect(found(article({ page: true, visibility: 'followers' }))).toEqual(['page_visibility']);
    expect(found(article({ page: true, visibility: 'unlisted' }))).toEqual([]);
    for (const p of ['slug_invalid', 'slug_reserved', 'slug_long', 'page_visibility'] as const) expect(sendDisabled([p])).toBe(true);
  });
});

describe('draft', () => {
  it('keeps the text only, restores it, and forgets an empty one', () => {
    saveDraft({ id: null, kind: 'article', title: 'T', content: 'body', summary: '' });
    const raw = JSON.parse(localStorage.getItem(DRAFT_KEY)!);
    expect(Object.keys(raw).sort()).toEqual(['content', 'id', 'kind', 'summary', 'title', 'v']);
    expect(loadDraft()).toEqual({ v: 1, id: null, kind: 'article', title: 'T', content: 'body', summary: '' });
    saveDraft({ id: null, kind: 'note', title: '', content: '  ', summary: '' });
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
  });

  it('ignores a broken or foreign value', () => {
    localStorage.setItem(DRAFT_KEY, '{not json');
    expect(loadDraft()).toBeNull();
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ v: 2, kind: 'note', content: 'x' }));
    expect(loadDraft()).toBeNull();
    clearDraft();
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
  });
});
