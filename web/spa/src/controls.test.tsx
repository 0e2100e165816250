// The lockdown as the whole app shows it: the shell's banner, the message of
// a change refused as locked, and the time conversions of controls.ts.
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './app';
import { controlsStore, localToRFC3339, lockdownStatus, rfc3339ToLocal, type Controls } from './controls';
import { setLang } from './i18n';
import { navigate } from './router';
import { call, RPCError } from './rpc';
import { Fail, fakeServer, mount, settle, submit, type, waitFor } from './testing';
import { ErrorBox, fullTime } from './ui/basic';

const info = { version: 'test', domain: 'blog.example', name: 'Alice', owner: true, limits: {}, themes: [] };
const switches = { comments: true, page_views: true, inbox: true, delivery: true, link_previews: true, service_worker: true };
const UNTIL = '2030-01-02T03:04:00Z';
const active: Controls = { switches, lockdown: { on: true, until: UNTIL, reason: 'incident' }, lockdown_active: true };
const off: Controls = { switches, lockdown: { on: false }, lockdown_active: false };
const scheduled: Controls = { switches, lockdown: { on: true, from: '2030-01-01T00:00:00Z' }, lockdown_active: false };
const locked = () => new Fail('locked', 'the site is in lockdown: changes are refused until the owner lifts it', {}, -32006);

let root: HTMLElement;
beforeEach(() => {
  setLang('en');
  controlsStore.set(null);
  root = document.createElement('div');
  document.body.append(root);
});
afterEach(() => {
  render(null, root);
  root.remove();
  vi.unstubAllGlobals();
  navigate('/', { replace: true });
});

const banner = () => root.querySelector('.banner.lockdown');

async function app(path: string) {
  navigate(path, { replace: true });
  await act(() => render(<App />, root));
  await settle(20);
}

describe('lockdown banner', () => {
  it('shows on every screen while lockdown is active, with its end in local time and a link to Controls', async () => {
    const s = fakeServer({ 'site.info': () => info, 'notifications.count_unread': () => ({ count: 0 }), 'site.controls.get': () => active, 'tokens.list': () => ({ items: [], next_cursor: null }) });
    await app('/tokens');
    expect(s.paramsOf('site.controls.get')).toHaveLength(1);
    expect(banner()!.textContent).toBe(`Lockdown: changes are refused until ${fullTime(UNTIL)}. Reason: incident Open Controls`);
    expect(banner()!.querySelector('a')!.getAttribute('href')).toBe('/my/controls');
    navigate('/posts');
    await settle();
    expect(banner()).not.toBeNull();
  });

  it('does not show when lockdown is off or only scheduled, nor to a visitor', async () => {
    let answer = off;
    fakeServer({ 'site.info': () => info, 'notifications.count_unread': () => ({ count: 0 }), 'site.controls.get': () => answer, 'tokens.list': () => ({ items: [], next_cursor: null }) });
    await app('/tokens');
    await waitFor(() => expect(root.querySelector('h1')!.textContent).toBe('Tokens'));
    expect(banner()).toBeNull();
    render(null, root);

    answer = scheduled;
    controlsStore.set(null);
    await app('/tokens');
    expect(controlsStore.get()).toEqual(scheduled);
    expect(banner()).toBeNull();
    render(null, root);

    const s = fakeServer({ 'site.info': () => ({ ...info, owner: false }), 'site.controls.get': () => active });
    controlsStore.set(active);
    await app('/login');
    expect(s.paramsOf('site.controls.get')).toHaveLength(0);
    expect(banner()).toBeNull();
  });

  it('appears when a change is refused as locked, and the error says lockdown is on', async () => {
    let controls = off;
    const s = fakeServer({
      'site.info': () => info,
      'notifications.count_unread': () => ({ count: 0 }),
      'site.controls.get': () => controls,
      'tokens.list': () => ({ items: [], next_cursor: null }),
      'tokens.create': () => {
        controls = active; // turned on from another device
        return locked();
      },
    });
    await app('/tokens');
    await waitFor(() => expect(root.querySelector('h1')!.textContent).toBe('Tokens'));
    expect(banner()).toBeNull();
    const name = root.querySelector('form input[type=text]');
    await type(name, 'deploy');
    await submit(root.querySelector('form'));
    await settle(20);

    const box = root.querySelector('.error-box')!;
    expect(box.textContent).toContain('Lockdown is on: the server refuses changes until it is lifted.');
    const link = box.querySelector('a')!;
    expect(link.textContent).toBe('Lift it in Controls.');
    expect(link.getAttribute('href')).toBe('/my/controls');
    expect(s.paramsOf('site.controls.get')).toHaveLength(2);
    expect(banner()).not.toBeNull();
  });
});

describe('a locked error', () => {
  it('says that lockdown is on and links to /controls; other errors do not', async () => {
    fakeServer({ 'posts.create': locked, 'posts.delete': () => new Fail('not_found', 'no such post', {}, -32001) });
    const err = await call('posts.create', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RPCError);
    expect((err as RPCError).dataCode).toBe('locked');
    const m = await mount(<ErrorBox error={err} />);
    expect(m.root.textContent).toBe('Lockdown is on: the server refuses changes until it is lifted. Lift it in Controls.');
    expect(m.root.querySelector('a')!.getAttribute('href')).toBe('/my/controls');
    m.unmount();

    const other = await call('posts.delete', {}).catch((e: unknown) => e);
    const n = await mount(<ErrorBox error={other} />);
    expect(n.root.textContent).toContain('It does not exist');
    expect(n.root.querySelector('a')).toBeNull();
    n.unmount();
  });
});

describe('controls.ts', () => {
  it('turns datetime-local values into RFC 3339 with the browser\'s offset and back', () => {
    const v = localToRFC3339('2030-06-15T23:45')!;
    expect(v).toMatch(/^2030-06-15T23:45:00[+-]\d{2}:\d{2}$/);
    expect(Date.parse(v)).toBe(new Date(2030, 5, 15, 23, 45).getTime());
    expect(localToRFC3339('2030-06-15T23:45:30')).toMatch(/^2030-06-15T23:45:30/);
    expect(rfc3339ToLocal(v)).toBe('2030-06-15T23:45');
    const utc = '2030-06-15T12:00:00Z';
    expect(new Date(rfc3339ToLocal(utc)).getTime()).toBe(Date.parse(utc));
    expect(localToRFC3339('')).toBeUndefined();
    expect(localToRFC3339('tomorrow')).toBeUndefined();
    expect(rfc3339ToLocal(undefined)).toBe('');
  });

  it('names the state of lockdown', () => {
    const now = Date.parse('2029-12-31T00:00:00Z');
    expect(lockdownStatus(off, now)).toBe('off');
    expect(lockdownStatus(active, now)).toBe('active');
    expect(lockdownStatus(scheduled, now)).toBe('scheduled');
    expect(lockdownStatus({ ...off, lockdown: { on: true, until: '2029-01-01T00:00:00Z' } }, now)).toBe('expired');
  });
});
