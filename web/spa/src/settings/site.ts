// The site form's model: site.get_settings in, site.update_settings' params
// out (docs/api.md "site" and "Public-site settings"). `extensions` is kept
// as the object the server stored: the form edits the parts it knows (share
// buttons, comment mode, the Google Analytics id) and sends every other key,
// provider and share id back as it came, as the server does.
import { chars } from './errors';

export interface Publication {
  persona_id: string;
  site_name: string;
  subtitle: string;
  author: string;
  introduction: string;
  design_theme: string;
  show_service_header: boolean;
  show_site_name: boolean;
  show_pagination: boolean;
  show_side_profile: boolean;
  show_side_recent: number;
  show_side_popular: number;
  extensions: unknown;
  themes: string[];
}

/**
 * The site-wide settings. The site's name and introduction are not among
 * them: they are the primary persona's publication.site_name and
 * .introduction (one setting each, docs/api.md "One name per setting").
 */
export interface Settings {
  domain: string;
  language: string;
  robots_noindex: boolean;
  robots_noai: boolean;
  authorized_fetch: boolean;
  allow_quotes: boolean;
  publication?: Publication;
}

/** The limits docs/api.md gives for these settings (site.info does not carry them). */
export const SITE_LIMITS = {
  site_name: 50,
  subtitle: 50,
  author: 50,
  introduction: 1000,
  measurement_id: 128,
  /** Pages show at most this many recent / popular posts whatever is stored. */
  side: 20,
} as const;

/**
 * The param paths the form's controls edit, for placing the server's
 * refusals (settings/errors.ts). The theme picker places its own.
 */
export const SITE_CONTROLS = [
  'language', 'robots_noindex', 'robots_noai', 'authorized_fetch', 'allow_quotes',
  'publication', 'publication.site_name', 'publication.subtitle', 'publication.author', 'publication.introduction',
  'publication.show_service_header', 'publication.show_site_name', 'publication.show_pagination',
  'publication.show_side_profile', 'publication.show_side_recent', 'publication.show_side_popular',
  'publication.extensions', 'publication.extensions.shareButtons', 'publication.extensions.comments',
  'publication.extensions.analytics',
] as const;

/** The share buttons pages know, in the order pages always show them. */
export const SHARE_IDS = ['x', 'facebook', 'line', 'hatena'] as const;
export const COMMENT_MODES = ['none', 'moderated', 'open'] as const;
export type CommentMode = (typeof COMMENT_MODES)[number];

export interface ExtensionsForm {
  /** Share ids to send: known ones and any kept from the stored list. */
  share: string[];
  comments: CommentMode;
  measurementId: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readExtensions(ext: unknown): ExtensionsForm {
  const e = isObj(ext) ? ext : {};
  const share = Array.isArray(e.shareButtons) ? e.shareButtons.filter((s): s is string => typeof s === 'string') : [];
  const mode = isObj(e.comments) ? e.comments.mode : undefined;
  const ga = isObj(e.analytics) && isObj(e.analytics.googleAnalytics) ? e.analytics.googleAnalytics : {};
  return {
    share,
    comments: (COMMENT_MODES as readonly unknown[]).includes(mode) ? (mode as CommentMode) : 'none',
    measurementId: typeof ga.measurementId === 'string' ? ga.measurementId : '',
  };
}

/** Share ids in the stored list that this version's pages do not show (a later version may). */
export function unknownShareIds(ext: unknown): string[] {
  return readExtensions(ext).share.filter((s) => !(SHARE_IDS as readonly string[]).includes(s));
}

/** Turns a share id on or off: known ids in the pages' order, then the kept ones in theirs. */
export function toggleShare(share: readonly string[], id: string, on: boolean): string[] {
  const set = new Set(share);
  if (on) set.add(id);
  else set.delete(id);
  const known = SHARE_IDS.filter((s) => set.has(s));
  const kept = share.filter((s) => set.has(s) && !(SHARE_IDS as readonly string[]).includes(s));
  if (on && !(SHARE_IDS as readonly string[]).includes(id) && !kept.includes(id)) kept.push(id);
  return [...known, ...kept];
}

/**
 * The `extensions` object to send: the stored one with the form's parts
 * replaced. A part left at its "off" value is removed when nothing else
 * was stored beside it, so an untouched site keeps sending `{}`.
 */
export function buildExtensions(stored: unknown, form: ExtensionsForm): Obj {
  const out: Obj = isObj(stored) ? { ...stored } : {};

  if (form.share.length > 0) out.shareButtons = [...form.share];
  else delete out.shareButtons;

  const comments: Obj = isObj(out.comments) ? { ...out.comments } : {};
  // An unset mode is "none"; other keys stored beside it stay.
  if (form.comments === 'none') delete comments.mode;
  else comments.mode = form.comments;
  if (Object.keys(comments).length > 0) out.comments = comments;
  else delete out.comments;

  const analytics: Obj = isObj(out.analytics) ? { ...out.analytics } : {};
  const ga: Obj = isObj(analytics.googleAnalytics) ? { ...analytics.googleAnalytics } : {};
  const id = form.measurementId.trim();
  if (id) ga.measurementId = id;
  else delete ga.measurementId;
  if (Object.keys(ga).length > 0) analytics.googleAnalytics = ga;
  else delete analytics.googleAnalytics;
  if (Object.keys(analytics).length > 0) out.analytics = analytics;
  else delete out.analytics;

  return out;
}

/** The form: the site-wide settings as they are, the publication's with the counts as typed. */
export interface SiteForm extends Omit<Settings, 'domain' | 'publication'> {
  site_name: string;
  subtitle: string;
  author: string;
  introduction: string;
  show_service_header: boolean;
  show_site_name: boolean;
  show_pagination: boolean;
  show_side_profile: boolean;
  /** As typed, so that a half-typed number is the owner's to finish. */
  show_side_recent: string;
  show_side_popular: string;
  ext: ExtensionsForm;
}

// Pages read the counts as 0–20 whatever is stored (docs/blog.md), so the
// form shows the count pages use.
const sideCount = (n: number) => String(Math.min(SITE_LIMITS.side, Math.max(0, Math.trunc(n) || 0)));

export function formFromSettings(s: Settings): SiteForm {
  const p = s.publication;
  return {
    language: s.language,
    robots_noindex: s.robots_noindex,
    robots_noai: s.robots_noai,
    authorized_fetch: s.authorized_fetch,
    allow_quotes: s.allow_quotes,
    site_name: p?.site_name ?? '',
    subtitle: p?.subtitle ?? '',
    author: p?.author ?? '',
    introduction: p?.introduction ?? '',
    show_service_header: p?.show_service_header ?? true,
    show_site_name: p?.show_site_name ?? true,
    show_pagination: p?.show_pagination ?? true,
    show_side_profile: p?.show_side_profile ?? true,
    show_side_recent: sideCount(p?.show_side_recent ?? 5),
    show_side_popular: sideCount(p?.show_side_popular ?? 5),
    ext: readExtensions(p?.extensions),
  };
}

/** A count field's number, or null when it is not a whole number from 0 to 20. */
export function parseCount(s: string): number | null {
  const v = s.trim();
  if (!/^\d{1,2}$/.test(v)) return null;
  const n = Number(v);
  return n <= SITE_LIMITS.side ? n : null;
}

/** The form's own refusals, by the param path of the control (as the server names them). */
export type SiteProblems = Partial<Record<string, 'long' | 'count'>>;

export function siteProblems(f: SiteForm): SiteProblems {
  const p: SiteProblems = {};
  const long = (path: string, v: string, max: number) => {
    if (chars(v) > max) p[path] = 'long';
  };
  long('publication.site_name', f.site_name.trim(), SITE_LIMITS.site_name);
  long('publication.subtitle', f.subtitle.trim(), SITE_LIMITS.subtitle);
  long('publication.author', f.author.trim(), SITE_LIMITS.author);
  long('publication.introduction', f.introduction.trim(), SITE_LIMITS.introduction);
  long('publication.extensions.analytics.googleAnalytics.measurementId', f.ext.measurementId.trim(), SITE_LIMITS.measurement_id);
  if (parseCount(f.show_side_recent) === null) p['publication.show_side_recent'] = 'count';
  if (parseCount(f.show_side_popular) === null) p['publication.show_side_popular'] = 'count';
  return p;
}

/**
 * site.update_settings' params for the whole form. The theme is not among
 * them: the theme picker applies it by itself (buildThemeUpdate), so that
 * saving the form never undoes a theme applied since it was loaded.
 */
export function buildSiteUpdate(f: SiteForm, stored: Settings, personaId?: string): Record<string, unknown> {
  const params: Record<string, unknown> = {
    language: f.language.trim(),
    robots_noindex: f.robots_noindex,
    robots_noai: f.robots_noai,
    authorized_fetch: f.authorized_fetch,
    allow_quotes: f.allow_quotes,
  };
  if (personaId) params.persona_id = personaId;
  if (stored.publication) {
    params.publication = {
      site_name: f.site_name,
      subtitle: f.subtitle,
      author: f.author,
      introduction: f.introduction,
      show_service_header: f.show_service_header,
      show_site_name: f.show_site_name,
      show_pagination: f.show_pagination,
      show_side_profile: f.show_side_profile,
      show_side_recent: parseCount(f.show_side_recent) ?? 0,
      show_side_popular: parseCount(f.show_side_popular) ?? 0,
      extensions: buildExtensions(stored.publication.extensions, f.ext),
    };
  }
  return params;
}

export function buildThemeUpdate(theme: string, personaId?: string): Record<string, unknown> {
  const params: Record<string, unknown> = { publication: { design_theme: theme } };
  if (personaId) params.persona_id = personaId;
  return params;
}

/** The theme in use: "" is the default theme. */
export function currentTheme(p: Publication | undefined): string {
  return p?.design_theme || 'default';
}

/**
 * The live preview of a theme (design.md: GET /my/preview/{theme}). The
 * name is one path segment: escaped, so that a name can never reach
 * another path, and "." / ".." (which browsers resolve away) are refused.
 */
export function previewURL(theme: string): string | null {
  const name = theme || 'default';
  if (name === '.' || name === '..') return null;
  return '/my/preview/' + encodeURIComponent(name);
}

/** The persona's public site: the primary one's is the site root. */
export function publicURL(persona: { username: string; primary: boolean } | null | undefined): string {
  if (!persona || persona.primary) return '/';
  return '/@' + encodeURIComponent(persona.username);
}
