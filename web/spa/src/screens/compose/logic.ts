// Compose's rules, apart from the screen so they can be tested alone: the
// length counter and when sending is allowed, the schedule time, an
// article's slug and page flag, the params of posts.create / posts.update,
// and the draft kept in localStorage.
import { slugify, slugProblem } from './slug';

export type Kind = 'note' | 'article';
export type Visibility = 'public' | 'unlisted' | 'followers' | 'direct';
export type When = 'now' | 'schedule' | 'draft';
export const VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'followers', 'direct'];

export interface Limits {
  note_chars: number;
  article_chars: number;
  title_chars: number;
  summary_chars: number;
}

// The server's limits (docs/api.md "Fields"), used only until site.info answers.
export const DEFAULT_LIMITS: Limits = { note_chars: 3000, article_chars: 100000, title_chars: 200, summary_chars: 1000 };

export interface Form {
  kind: Kind;
  title: string;
  content: string;
  summary: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string;
  when: When;
  /** datetime-local value, "2026-04-10T21:00", in the browser's time zone. */
  scheduleAt: string;
  /** An article's slug as the field shows it: the title's, until the owner edits it. */
  slug: string;
  /** Whether the owner edited the slug (it is then sent; else the server makes it). */
  slugTouched: boolean;
  /** The slug the article has on the server ("" for a new one, or one never published). */
  slugSaved: string;
  /** An article that is a page of the site (About …). */
  page: boolean;
}

/**
 * The form with a new title. The slug field follows the title — the
 * address the server will make when the article is published — until the
 * owner edits the slug, or once the article has one (the address stays).
 */
export function withTitle(form: Form, title: string): Form {
  const follows = !form.slugTouched && form.slugSaved === '';
  return { ...form, title, slug: follows ? slugify(title) : form.slug };
}

/** The form with a slug the owner typed. */
export function withSlug(form: Form, slug: string): Form {
  return { ...form, slug, slugTouched: true };
}

export interface Preview {
  kind: Kind;
  content: string;
  title: string;
  html: string;
  chars: number;
  limit: number;
}

/** Characters as the server counts them: Unicode code points. */
export function countChars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export interface Counter {
  chars: number;
  limit: number;
  over: boolean;
  /** Whether the numbers are the server's (posts.preview for exactly this text). */
  exact: boolean;
}

/**
 * The content's length and limit: posts.preview's `chars`/`limit` when the
 * preview is of the current text, else the browser's count against the
 * newest known limit for this kind (the preview's, else site.info's).
 */
export function counter(form: Pick<Form, 'kind' | 'content'>, preview: Preview | null, limits: Limits): Counter {
  const fresh = preview !== null && preview.kind === form.kind && preview.content === form.content;
  const limit = preview !== null && preview.kind === form.kind ? preview.limit : form.kind === 'article' ? limits.article_chars : limits.note_chars;
  const chars = fresh ? preview.chars : countChars(form.content);
  return { chars, limit, over: chars > limit, exact: fresh };
}

/** Parses a datetime-local value as local time; null when it is not one. */
export function parseLocal(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x))) as number[];
  const date = new Date(y!, mo! - 1, d!, h!, mi!, s!);
  // Reject rolled-over dates ("02-31") and times skipped by a DST change.
  if (date.getFullYear() !== y || date.getMonth() !== mo! - 1 || date.getDate() !== d || date.getHours() !== h || date.getMinutes() !== mi) return null;
  return date;
}

/** A datetime-local value in the browser's time zone → the RFC 3339 UTC time the API wants. */
export function scheduleToISO(value: string): string | null {
  const d = parseLocal(value);
  return d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** An RFC 3339 time → a datetime-local value in the browser's time zone. */
export function isoToLocal(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The default schedule: the next full hour that is at least 30 minutes away. */
export function defaultSchedule(now: Date = new Date()): string {
  const d = new Date(now.getTime() + 30 * 60_000);
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return isoToLocal(d.toISOString());
}

/** "Asia/Tokyo (UTC+09:00)": the zone a schedule time is read in. */
export function timeZoneLabel(at: Date = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
  const off = -at.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  const utc = `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return zone ? `${zone} (${utc})` : utc;
}

export type Problem =
  | 'empty' | 'title_missing' | 'title_long' | 'summary_long' | 'over' | 'schedule_invalid' | 'schedule_past'
  | 'slug_long' | 'slug_invalid' | 'slug_reserved' | 'page_visibility';

/** Why the form cannot be sent, if it cannot; the send button is disabled while there is one. */
export function problems(form: Form, count: Counter, limits: Limits, now: Date = new Date()): Problem[] {
  const p: Problem[] = [];
  if (form.content.trim() === '') p.push('empty');
  if (count.over) p.push('over');
  if (form.kind === 'article') {
    if (form.title.trim() === '') p.push('title_missing');
    if (countChars(form.title) > limits.title_chars) p.push('title_long');
    const sp = form.slugTouched ? slugProblem(form.slug) : null;
    if (sp) p.push(sp);
    if (form.page && form.visibility !== 'public' && form.visibility !== 'unlisted') p.push('page_visibility');
  }
  if (countChars(form.summary) > limits.summary_chars) p.push('summary_long');
  if (form.when === 'schedule') {
    const d = parseLocal(form.scheduleAt);
    if (!d) p.push('schedule_invalid');
    else if (d.getTime() <= now.getTime()) p.push('schedule_past');
  }
  return p;
}

// Problems shown as soon as they exist, which keep the send button disabled
// (over the limit above all). An empty text or a missing title are said when
// the owner tries to send, so the button never sits disabled unexplained.
const BLOCKING: readonly Problem[] = [
  'over', 'title_long', 'summary_long', 'schedule_invalid', 'schedule_past', 'slug_long', 'slug_invalid', 'slug_reserved', 'page_visibility',
];

export function sendDisabled(found: readonly Problem[]): boolean {
  return found.some((p) => BLOCKING.includes(p));
}

export interface EditContext {
  id: string;
  /** The post's state when it was loaded. */
  state: 'draft' | 'scheduled' | 'published';
}

/**
 * The params of posts.create (no `edit`) or posts.update. published_at:
 * omitted means "now" for a new post and "unchanged" for an update; null
 * is a draft; a future time schedules. So "publish now" of an existing
 * draft or scheduled post sends the current time, and of a published post
 * sends nothing (it keeps its date).
 */
export function postParams(form: Form, edit: EditContext | null, inReplyTo: string | null, now: Date = new Date()): Record<string, unknown> {
  const p: Record<string, unknown> = {
    content: form.content,
    summary: form.summary.trim(),
    sensitive: form.sensitive || form.summary.trim() !== '',
    visibility: form.visibility,
  };
  if (edit) p.id = edit.id;
  else p.kind = form.kind;
  if (form.kind === 'article') {
    p.title = form.title.trim();
    // Only a slug the owner wrote is sent: otherwise the server makes the
    // one the field shows (or keeps the article's). "" asks for a new one.
    if (form.slugTouched) p.slug = form.slug;
    if (form.page || edit) p.page = form.page;
  }
  if (form.language.trim() !== '' || edit) p.language = form.language.trim();
  if (form.when === 'draft') p.published_at = null;
  else if (form.when === 'schedule') p.published_at = scheduleToISO(form.scheduleAt);
  else if (edit && edit.state !== 'published') p.published_at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (!edit && inReplyTo) p.in_reply_to = inReplyTo;
  return p;
}

// --- the unsent draft ---

export const DRAFT_KEY = 'murlog.draft';

/** What is kept of an unsent post: its text only, and which post it edits. */
export interface Draft {
  v: 1;
  /** The post being edited, or null for a new one. */
  id: string | null;
  kind: Kind;
  title: string;
  content: string;
  summary: string;
}

export function saveDraft(d: Omit<Draft, 'v'>, storage: Storage = localStorage): void {
  try {
    if (d.content.trim() === '' && d.title.trim() === '' && d.summary.trim() === '') storage.removeItem(DRAFT_KEY);
    else storage.setItem(DRAFT_KEY, JSON.stringify({ v: 1, ...d }));
  } catch {
    // Storage full or refused: the draft just is not kept.
  }
}

export function loadDraft(storage: Storage = localStorage): Draft | null {
  try {
    const raw = storage.getItem(DRAFT_KEY);
    if (!raw) return null;
    const d = JSON.parse(raw) as Partial<Draft>;
    if (d.v !== 1 || (d.kind !== 'note' && d.kind !== 'article')) return null;
    const str = (x: unknown) => (typeof x === 'string' ? x : '');
    return { v: 1, id: typeof d.id === 'string' ? d.id : null, kind: d.kind, title: str(d.title), content: str(d.content), summary: str(d.summary) };
  } catch {
    return null;
  }
}

export function clearDraft(storage: Storage = localStorage): void {
  try {
    storage.removeItem(DRAFT_KEY);
  } catch {
    // nothing to clear
  }
}
