import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SiteContext, type SiteInfo, type SiteState } from '../hooks';
import { setLang } from '../i18n';
import { button, byLabel, callsOf, click, errorOf, failure, mount, refusal, settle, stubRPC, type, unmount } from '../settings/testing';
import Profile from './Profile';

const info = {
  version: 't', domain: 'blog.example', owner: true, themes: [],
  limits: { fields: 4, display_name_chars: 10, bio_chars: 20, field_name_chars: 8, field_value_chars: 30 },
} as unknown as SiteInfo;
const site: SiteState = { info, reload: async () => undefined, refreshUnread: () => undefined };

const persona = {
  id: 'p1', username: 'alice', acct: 'alice@blog.example', display_name: 'Alice', summary: 'Hi', primary: true,
  url: 'https://blog.example/@alice', locked: false, show_follows: true, discoverable: true,
  fields: [{ name: 'web', value: 'https://a.example' }, { name: 'pronouns', value: 'she' }],
};

const render = () =>
  mount(
    <SiteContext.Provider value={site}>
      <Profile params={{}} query={new URLSearchParams()} />
    </SiteContext.Provider>,
  );
const submit = async (root: HTMLElement) => click(button(root, 'Save profile'));
const rows = (root: HTMLElement) => root.querySelectorAll('fieldset.profile-field').length;

beforeEach(() => setLang('en'));
afterEach(() => unmount());

describe('Profile', () => {
  it('shows the persona and saves every setting with the fields in their order', async () => {
    let sent: any = null;
    const calls = stubRPC({
      'personas.get': () => persona,
      'personas.update': (p) => ((sent = p), { ...persona, ...p }),
    });
    const root = await render();
    expect(callsOf(calls, 'personas.get')[0]!.params).toEqual({});
    expect(byLabel(root, 'Display name').value).toBe('Alice');
    expect(byLabel(root, 'Bio').value).toBe('Hi');
    expect(rows(root)).toBe(2);
    expect(root.querySelector('.counter')!.textContent).toBe('5 / 10');

    await click(button(root, 'Move field 2 up'));
    // focus stays with the moved field's buttons
    expect(document.activeElement?.id).toBe('pf-0-down');
    await click(byLabel(root, 'Approve followers'));
    await type(byLabel(root, 'Display name'), 'Alice 🌸');
    await submit(root);
    expect(sent).toEqual({
      id: 'p1', display_name: 'Alice 🌸', summary: 'Hi', locked: true, show_follows: true, discoverable: true,
      fields: [{ name: 'pronouns', value: 'she' }, { name: 'web', value: 'https://a.example' }],
    });
    expect(root.querySelector('[role=status]:not(.loading)')!.textContent).toBe('Saved.');
  });

  it('allows at most the limit of fields', async () => {
    stubRPC({ 'personas.get': () => persona });
    const root = await render();
    await click(button(root, 'Add a field'));
    expect(document.activeElement?.id).toBe('pf-2-name');
    await click(button(root, 'Add a field'));
    expect(rows(root)).toBe(4);
    expect(button(root, 'Add a field').disabled).toBe(true);
    expect(root.textContent).toContain('That is the most: 4 fields.');
    await click(button(root, 'Remove field 1'));
    expect(rows(root)).toBe(3);
    expect(button(root, 'Add a field').disabled).toBe(false);
  });

  it('blocks saving what is over a limit or a value without a name', async () => {
    const calls = stubRPC({ 'personas.get': () => persona });
    const root = await render();
    await type(byLabel(root, 'Display name'), 'x'.repeat(11));
    expect(errorOf(byLabel(root, 'Display name'))).toContain('Too long');
    expect(button(root, 'Save profile').disabled).toBe(true);
    await type(byLabel(root, 'Display name'), 'Alice');
    await type(document.getElementById('pf-1-name') as HTMLInputElement, '');
    expect(errorOf(document.getElementById('pf-1-name')!)).toContain('needs a name');
    await submit(root);
    expect(callsOf(calls, 'personas.update')).toHaveLength(0);
  });

  it('shows a refusal next to the field the server names, and a fields refusal at its row', async () => {
    let answer: unknown = refusal('display_name', 'may not contain U+202E');
    stubRPC({ 'personas.get': () => ({ ...persona, fields: [] }), 'personas.update': () => answer });
    const root = await render();
    await submit(root);
    const name = byLabel(root, 'Display name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(name)).toBe('Error: may not contain U+202E');
    expect(document.activeElement).toBe(name);
    expect(root.textContent).toContain('Not saved: see the marked field.');

    // A blank first row is not sent, so the server's "field 2" is the third row.
    for (let i = 0; i < 3; i++) await click(button(root, 'Add a field'));
    await type(document.getElementById('pf-1-name') as HTMLInputElement, 'a');
    await type(document.getElementById('pf-2-name') as HTMLInputElement, 'b');
    answer = refusal('fields', 'field 2 name may not contain U+202E');
    await submit(root);
    expect(errorOf(name)).toBeNull();
    expect(errorOf(document.getElementById('pf-2-name')!)).toBe('Error: field 2 name may not contain U+202E');
    expect(errorOf(document.getElementById('pf-1-name')!)).toBeNull();

    answer = refusal('fields', 'at most 4 fields');
    await submit(root);
    expect(root.querySelector('.profile-fields > .field-error')!.textContent).toBe('Error: at most 4 fields');
  });

  it('shows a load failure with a retry, and other save failures above the button', async () => {
    let fail = true;
    stubRPC({
      'personas.get': () => (fail ? failure('unavailable', 'database busy') : persona),
      'personas.update': () => failure('timeout'),
    });
    const root = await render();
    expect(root.querySelector('[role=alert]')!.textContent).toContain('busy or not ready');
    fail = false;
    await click(button(root, 'Retry'));
    expect(byLabel(root, 'Display name').value).toBe('Alice');
    stubRPC({ 'personas.get': () => persona, 'personas.update': () => failure('unavailable', 'database busy') });
    await submit(root);
    await settle();
    expect(root.querySelector('form [role=alert]')!.textContent).toContain('busy or not ready');
  });
});
