import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setLang } from '../i18n';
import type { Settings } from '../settings/site';
import { button, byLabel, callsOf, click, errorOf, failure, mount, refusal, stubRPC, type, unmount } from '../settings/testing';
import Site from './Site';

const stored = {
  shareButtons: ['hatena', 'mastodon'],
  comments: { mode: 'moderated' },
  analytics: { matomo: { site: 7 } },
  futureFeature: true,
};
const settings = (over: Partial<Settings['publication']> = {}): Settings => ({
  domain: 'blog.example', language: 'ja', robots_noindex: false, robots_noai: true,
  authorized_fetch: false, allow_quotes: true,
  publication: {
    persona_id: 'p1', site_name: 'Alice の日記', subtitle: '', author: '', introduction: '', design_theme: '',
    show_service_header: true, show_site_name: true, show_pagination: true, show_side_profile: true,
    show_side_recent: 5, show_side_popular: 5, extensions: stored, themes: ['dark', 'default', 'vertical'], ...over,
  },
});
const personas = { items: [{ id: 'p1', username: 'alice', display_name: 'Alice', primary: true }], next_cursor: null };

function server(update: (p: any) => unknown = () => settings()) {
  return stubRPC({ 'site.get_settings': () => settings(), 'personas.list': () => personas, 'site.update_settings': update });
}
const render = () => mount(<Site params={{}} query={new URLSearchParams()} />);
const save = (root: HTMLElement) => click(button(root, 'Save settings'));
const iframe = (root: HTMLElement) => root.querySelector('iframe')!;

beforeEach(() => {
  setLang('en');
  // happy-dom loads no iframe page and prints an error for each preview to
  // the worker's stderr (through the console it was created with).
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown, ...rest: any[]) =>
    String(chunk).includes('Iframe page loading is disabled') ? true : write(chunk as string, ...rest)) as typeof process.stderr.write);
});
afterEach(() => {
  unmount();
  vi.restoreAllMocks();
});

describe('Site settings', () => {
  it('sends the whole form, with the extensions as the object the server expects', async () => {
    const calls = server((p) => ({ ...settings(), language: p.language }));
    const root = await render();
    expect(byLabel(root, 'Site name').value).toBe('Alice の日記');
    expect(byLabel(root, 'Hatena Bookmark and Star').checked).toBe(true);
    expect(byLabel(root, 'Moderated').checked).toBe(true);
    expect(root.querySelector('a.button')!.getAttribute('href')).toBe('/');

    await click(byLabel(root, 'X'));
    await click(byLabel(root, 'mastodon'));
    await click(byLabel(root, 'Open'));
    await click(byLabel(root, 'Refuse AI crawlers'));
    await type(byLabel(root, 'Google Analytics measurement ID'), ' G-ABC123 ');
    await type(byLabel(root, 'Recent posts in the sidebar'), '3');
    await save(root);

    const [sent] = callsOf(calls, 'site.update_settings');
    expect(sent!.params).toEqual({
      language: 'ja', robots_noindex: false, robots_noai: false, authorized_fetch: false, allow_quotes: true,
      publication: {
        site_name: 'Alice の日記', subtitle: '', author: '', introduction: '',
        show_service_header: true, show_site_name: true, show_pagination: true, show_side_profile: true,
        show_side_recent: 3, show_side_popular: 5,
        extensions: {
          shareButtons: ['x', 'hatena'],
          comments: { mode: 'open' },
          analytics: { matomo: { site: 7 }, googleAnalytics: { measurementId: 'G-ABC123' } },
          futureFeature: true,
        },
      },
    });
    expect(root.textContent).toContain('Saved.');
  });

  it('shows the server\'s refusal next to the extension control it names', async () => {
    let answer: unknown = refusal('publication.extensions.shareButtons[1]', 'not a share button id');
    server(() => answer);
    const root = await render();
    await save(root);
    const share = [...root.querySelectorAll('fieldset')].find((f) => f.querySelector('legend')!.textContent === 'Share buttons')!;
    expect(share.querySelector('.field-error')!.textContent).toBe('Error: not a share button id');
    expect(document.activeElement).toBe(share.querySelector('.field-error'));
    expect(root.textContent).toContain('Not saved: see the marked field. Nothing was changed.');

    answer = refusal('publication.extensions.analytics.googleAnalytics.measurementId', 'must be at most 128 characters');
    await save(root);
    expect(share.querySelector('.field-error')).toBeNull();
    const ga = byLabel(root, 'Google Analytics measurement ID');
    expect(ga.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(ga)).toBe('Error: must be at most 128 characters');

    answer = refusal('publication.extensions.comments.mode', 'must be none, moderated or open');
    await save(root);
    const comments = [...root.querySelectorAll('fieldset')].find((f) => f.querySelector('legend')!.textContent === 'Comments')!;
    expect(comments.querySelector('.field-error')!.textContent).toBe('Error: must be none, moderated or open');

    answer = refusal('publication.subtitle', 'must be at most 50 characters');
    await save(root);
    expect(errorOf(byLabel(root, 'Subtitle'))).toBe('Error: must be at most 50 characters');

    answer = refusal('language', 'must be a language tag such as ja or en-US');
    await save(root);
    expect(errorOf(byLabel(root, 'Language'))).toBe('Error: must be a language tag such as ja or en-US');
    expect(errorOf(byLabel(root, 'Subtitle'))).toBeNull();

    answer = failure('unavailable', 'database busy');
    await save(root);
    expect(root.querySelector('.site-form > [role=alert]')!.textContent).toContain('busy or not ready');
  });

  it('does not send a count that is not 0 to 20, or text over its limit', async () => {
    const calls = server();
    const root = await render();
    await type(byLabel(root, 'Popular posts in the sidebar'), '25');
    expect(errorOf(byLabel(root, 'Popular posts in the sidebar'))).toContain('from 0 to 20');
    await type(byLabel(root, 'Popular posts in the sidebar'), '2');
    await type(byLabel(root, 'Site name'), '名'.repeat(51));
    expect(root.querySelector('.counter.over')!.textContent).toBe('51 / 50');
    expect(button(root, 'Save settings').disabled).toBe(true);
    await save(root);
    expect(callsOf(calls, 'site.update_settings')).toHaveLength(0);
  });

  it('previews a theme in a titled, lazy iframe and applies it alone', async () => {
    let answer: unknown = settings({ design_theme: 'vertical' });
    const calls = server(() => answer);
    const root = await render();
    expect(byLabel(root, 'default (in use)').checked).toBe(true);
    expect(iframe(root).getAttribute('src')).toBe('/my/preview/default');
    expect(iframe(root).getAttribute('loading')).toBe('lazy');
    expect(iframe(root).getAttribute('title')).toBe('Preview of the post page with the theme default');
    expect(button(root, 'Apply default').disabled).toBe(true);

    await click(byLabel(root, 'vertical'));
    expect(iframe(root).getAttribute('src')).toBe('/my/preview/vertical');
    expect(iframe(root).getAttribute('title')).toContain('vertical');
    await type(byLabel(root, 'Subtitle'), 'unsaved edit');
    await click(button(root, 'Apply vertical'));
    expect(callsOf(calls, 'site.update_settings').map((c) => c.params)).toEqual([{ publication: { design_theme: 'vertical' } }]);
    expect(root.textContent).toContain('The public site now uses vertical.');
    // Every page changes with the theme: the note links to where the rebuild's progress shows.
    const note = root.querySelector('.theme-rebuilding')!;
    expect(note.textContent).toBe('Every page of the public site is being rendered again in the background. See the progress in Controls');
    expect(note.querySelector('a')!.getAttribute('href')).toBe('/my/controls');
    expect(byLabel(root, 'vertical (in use)').checked).toBe(true);
    // the form's own edits are kept
    expect(byLabel(root, 'Subtitle').value).toBe('unsaved edit');

    answer = refusal('publication.design_theme', 'there is no theme "dark"');
    await click(byLabel(root, 'dark'));
    await click(button(root, 'Apply dark'));
    expect(root.querySelector('.theme-picker .field-error')!.textContent).toBe('Error: there is no theme "dark"');
    expect(root.querySelector('.theme-rebuilding'), 'the note after a refused theme').toBeNull();
  });

  it('says when no theme is installed, and shows a load failure with a retry', async () => {
    let fail = true;
    stubRPC({
      'site.get_settings': () => (fail ? failure('internal', 'internal error', -32603) : settings({ themes: [] })),
      'personas.list': () => personas,
    });
    const root = await render();
    expect(root.querySelector('[role=alert]')!.textContent).toContain('server had a problem');
    fail = false;
    await click(button(root, 'Retry'));
    expect(root.textContent).toContain('No themes are installed.');
    expect(root.querySelector('iframe')).toBeNull();
  });

  it('has one field per setting, each saying where it shows', async () => {
    server();
    const root = await render();
    const labels = [...root.querySelectorAll('.site-form label')].map((l) => l.textContent!.trim());
    for (const gone of ['Site title', 'Site description']) expect(labels).not.toContain(gone);
    for (const [label, where] of [
      ['Site name', 'At the top of every page'],
      ['Subtitle', 'under the site name'],
      ['Author', 'Shown on posts'],
      ['Introduction', 'on the site page'],
      ['Language', 'Empty: English'],
    ] as const) {
      expect(labels.filter((l) => l === label), label).toHaveLength(1);
      const input = byLabel(root, label);
      const hint = document.getElementById(input.getAttribute('aria-describedby')!.split(' ')[0]!);
      expect(hint?.textContent, label).toContain(where);
    }
  });

  it('says that comments are not there yet, and keeps the stored mode for when they are', async () => {
    const calls = server();
    const root = await render();
    const group = byLabel(root, 'Moderated').closest('fieldset')!;
    const note = group.querySelector('#site-comments-later')!;
    expect(note.textContent).toContain('Comments arrive in a later version');
    expect(group.getAttribute('aria-describedby')).toBe('site-comments-later');
    // No choice promises a comment area today.
    for (const hint of group.querySelectorAll('.check .hint')) expect(hint.textContent).not.toMatch(/^Post pages have a comment area/);
    expect(byLabel(root, 'Moderated').checked).toBe(true);
    await save(root);
    expect(callsOf(calls, 'site.update_settings')[0]!.params.publication.extensions.comments).toEqual({ mode: 'moderated' });
  });

  it('edits another persona\'s blog when there are several', async () => {
    const calls = stubRPC({
      'site.get_settings': (p) => settings({ persona_id: p.persona_id ?? 'p1', site_name: p.persona_id === 'p2' ? 'Bob' : 'Alice' }),
      'personas.list': () => ({ items: [...personas.items, { id: 'p2', username: 'bob', display_name: '', primary: false }], next_cursor: null }),
      'site.update_settings': () => settings(),
    });
    const root = await render();
    const select = byLabel(root, 'Persona') as unknown as HTMLSelectElement;
    select.value = 'p2';
    await click(select);
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await click(root);
    expect(callsOf(calls, 'site.get_settings').at(-1)!.params).toEqual({ persona_id: 'p2' });
    expect(byLabel(root, 'Site name').value).toBe('Bob');
    expect(root.querySelector('a.button')!.getAttribute('href')).toBe('/@bob');
    await save(root);
    expect(callsOf(calls, 'site.update_settings')[0]!.params.persona_id).toBe('p2');
  });
});
