import { describe, expect, it } from 'vitest';
import {
  buildExtensions,
  buildSiteUpdate,
  buildThemeUpdate,
  formFromSettings,
  parseCount,
  previewURL,
  publicURL,
  readExtensions,
  siteProblems,
  toggleShare,
  unknownShareIds,
  type Settings,
} from './site';

const stored = {
  shareButtons: ['hatena', 'mastodon', 'x'],
  comments: { mode: 'moderated', threading: true },
  analytics: { googleAnalytics: { measurementId: 'G-OLD', anonymize: true }, matomo: { site: 7 } },
  futureFeature: [1, 'two', null],
};

describe('extensions', () => {
  it('read the parts the form edits, whatever else is stored', () => {
    expect(readExtensions(stored)).toEqual({ share: ['hatena', 'mastodon', 'x'], comments: 'moderated', measurementId: 'G-OLD' });
    expect(readExtensions({})).toEqual({ share: [], comments: 'none', measurementId: '' });
    expect(readExtensions('{}')).toEqual({ share: [], comments: 'none', measurementId: '' });
    expect(readExtensions({ comments: { mode: 'everyone' }, shareButtons: 'x' })).toEqual({ share: [], comments: 'none', measurementId: '' });
    expect(unknownShareIds(stored)).toEqual(['mastodon']);
  });

  it('build the JSON the server expects, keeping every key the form does not edit', () => {
    const out = buildExtensions(stored, { share: ['x', 'line', 'mastodon'], comments: 'open', measurementId: '  G-NEW1 ' });
    expect(out).toEqual({
      shareButtons: ['x', 'line', 'mastodon'],
      comments: { mode: 'open', threading: true },
      analytics: { googleAnalytics: { measurementId: 'G-NEW1', anonymize: true }, matomo: { site: 7 } },
      futureFeature: [1, 'two', null],
    });
    // the stored object is not changed
    expect(stored.comments.mode).toBe('moderated');
    expect(JSON.stringify(buildExtensions(stored, readExtensions(stored)))).toBe(JSON.stringify(stored));
  });

  it('leave out the parts turned off, so an untouched site sends {}', () => {
    expect(buildExtensions({}, { share: [], comments: 'none', measurementId: '' })).toEqual({});
    expect(buildExtensions({ comments: { mode: 'open' }, analytics: { googleAnalytics: { measurementId: 'G-1' } } }, { share: [], comments: 'none', measurementId: ' ' })).toEqual({});
    // keys stored beside an "off" value stay
    expect(buildExtensions(stored, { share: [], comments: 'none', measurementId: '' })).toEqual({
      comments: { threading: true },
      analytics: { googleAnalytics: { anonymize: true }, matomo: { site: 7 } },
      futureFeature: [1, 'two', null],
    });
    expect(buildExtensions({ shareButtons: ['x'] }, { share: ['facebook'], comments: 'moderated', measurementId: 'G-2' })).toEqual({
      shareButtons: ['facebook'], comments: { mode: 'moderated' }, analytics: { googleAnalytics: { measurementId: 'G-2' } },
    });
  });

  it('list share ids in the pages\' order, then the kept ones', () => {
    let s = toggleShare([], 'hatena', true);
    s = toggleShare(s, 'x', true);
    s = toggleShare(s, 'line', true);
    expect(s).toEqual(['x', 'line', 'hatena']);
    expect(toggleShare(['mastodon', 'x'], 'facebook', true)).toEqual(['x', 'facebook', 'mastodon']);
    expect(toggleShare(['x', 'mastodon'], 'mastodon', false)).toEqual(['x']);
    expect(toggleShare(['x'], 'x', true)).toEqual(['x']);
  });
});

const settings: Settings = {
  domain: 'blog.example', language: 'ja', robots_noindex: false, robots_noai: true,
  authorized_fetch: false, allow_quotes: true,
  publication: {
    persona_id: 'p1', site_name: 'S', subtitle: '', author: '', introduction: '', design_theme: 'vertical',
    show_service_header: true, show_site_name: false, show_pagination: true, show_side_profile: true,
    show_side_recent: 100, show_side_popular: -1, extensions: stored, themes: ['default', 'vertical'],
  },
};

describe('site form', () => {
  it('shows the counts as pages use them (0–20)', () => {
    const f = formFromSettings(settings);
    expect(f.show_side_recent).toBe('20');
    expect(f.show_side_popular).toBe('0');
  });

  it('sends every setting but the theme, and the extensions object', () => {
    const f = { ...formFromSettings(settings), language: ' en ', show_side_recent: '7' };
    const p = buildSiteUpdate(f, settings) as any;
    expect(Object.keys(p).sort()).toEqual(['allow_quotes', 'authorized_fetch', 'language', 'publication', 'robots_noai', 'robots_noindex']);
    expect(p.language).toBe('en');
    expect(p.publication).not.toHaveProperty('design_theme');
    expect(p.publication).not.toHaveProperty('themes');
    expect(p.publication.show_side_recent).toBe(7);
    expect(p.publication.show_site_name).toBe(false);
    expect(typeof p.publication.extensions).toBe('object');
    expect(p.publication.extensions).toEqual(stored);
    expect(buildSiteUpdate(f, settings, 'p2').persona_id).toBe('p2');
    expect(buildSiteUpdate(f, { ...settings, publication: undefined })).not.toHaveProperty('publication');
    expect(buildThemeUpdate('dark', 'p2')).toEqual({ persona_id: 'p2', publication: { design_theme: 'dark' } });
  });

  it('refuses what the server would refuse, by the server\'s field names', () => {
    const f = formFromSettings(settings);
    expect(siteProblems(f)).toEqual({});
    expect(siteProblems({ ...f, site_name: '名'.repeat(51), show_side_popular: '1.5', show_side_recent: '21' })).toEqual({
      'publication.site_name': 'long', 'publication.show_side_popular': 'count', 'publication.show_side_recent': 'count',
    });
    expect(siteProblems({ ...f, site_name: ' ' + '名'.repeat(50) + ' ' })).toEqual({});
    expect(siteProblems({ ...f, ext: { ...f.ext, measurementId: 'G'.repeat(129) } })).toEqual({
      'publication.extensions.analytics.googleAnalytics.measurementId': 'long',
    });
    expect([parseCount('0'), parseCount(' 20 '), parseCount(''), parseCount('-1'), parseCount('1e1')]).toEqual([0, 20, null, null, null]);
  });
});

describe('theme preview URL', () => {
  it('escapes the theme name into one path segment', () => {
    expect(previewURL('vertical')).toBe('/my/preview/vertical');
    expect(previewURL('')).toBe('/my/preview/default');
    expect(previewURL('a/b')).toBe('/my/preview/a%2Fb');
    expect(previewURL('../../api')).toBe('/my/preview/..%2F..%2Fapi');
    expect(previewURL('x?y#z')).toBe('/my/preview/x%3Fy%23z');
    expect(previewURL('縦 書き')).toBe('/my/preview/%E7%B8%A6%20%E6%9B%B8%E3%81%8D');
    expect(previewURL('..')).toBeNull();
    expect(previewURL('.')).toBeNull();
  });

  it('and the public site is the root for the primary persona', () => {
    expect(publicURL({ username: 'alice', primary: true })).toBe('/');
    expect(publicURL(undefined)).toBe('/');
    expect(publicURL({ username: 'bob', primary: false })).toBe('/@bob');
  });
});
