import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { App, safeNext } from './app';
import { setLang } from './i18n';
import { navigate } from './router';
import { waitFor } from './testing';

type Result = unknown | { error: { code: number; message: string; data: { code: string } } };

function stubServer(answers: Record<string, (params: any) => Result>) {
  const seen: string[] = [];
  vi.stubGlobal('fetch', vi.fn(async (_url: string, init: RequestInit) => {
    const req = JSON.parse(String(init.body));
    seen.push(req.method);
    const a = answers[req.method];
    const r = a ? a(req.params) : { error: { code: -32601, message: 'unknown method', data: { code: 'not_found' } } };
    const body = r && typeof r === 'object' && 'error' in r ? { jsonrpc: '2.0', id: req.id, ...r } : { jsonrpc: '2.0', id: req.id, result: r };
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
  }));
  return seen;
}

const info = (owner: boolean) => ({ version: 'test', domain: 'blog.example', name: 'Alice の日記', owner, limits: {}, themes: [] });
const settle = async () => {
  for (let i = 0; i < 20; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
};

let root: HTMLElement;
beforeEach(() => {
  setLang('en');
  root = document.createElement('div');
  document.body.append(root);
});
afterEach(() => {
  render(null, root);
  root.remove();
  vi.unstubAllGlobals();
  navigate('/', { replace: true });
});

describe('App shell', () => {
  it('sends a visitor to the login screen, keeping the wanted route in ?next=', async () => {
    navigate('/compose', { replace: true });
    stubServer({ 'site.info': () => info(false) });
    await act(() => render(<App />, root));
    await settle();
    expect(location.pathname).toBe('/my/login');
    expect(new URLSearchParams(location.search).get('next')).toBe('/compose');
    expect(root.querySelector('nav')).toBeNull();
    await waitFor(() => expect(root.querySelector('h1')!.textContent).toBe('Log in'));
  });

  it('shows the nav with the unread badge to the owner, and the current link marked', async () => {
    navigate('/tokens', { replace: true });
    stubServer({ 'site.info': () => info(true), 'notifications.count_unread': () => ({ count: 3 }) });
    await act(() => render(<App />, root));
    await settle();
    // the badge ("3", hidden from screen readers) and the spoken "3 unread"
    const links = [...root.querySelectorAll('nav a')].map((a) => a.textContent);
    expect(links).toEqual(['Home', 'Compose', 'Posts', 'Notifications33 unread', 'Follows', 'Blocks', 'Profile', 'Site', 'Controls', 'Queue', 'Security', 'Tokens']);
    expect(root.querySelector('nav a[aria-current=page]')!.textContent).toBe('Tokens');
    expect(root.querySelector('.brand')!.textContent).toBe('Alice の日記');
    await waitFor(() => expect(root.querySelector('h1')!.textContent).toBe('Tokens'));
  });

  it('names the site, not its address, in the header, the title and the description of the login screen', async () => {
    navigate('/login', { replace: true });
    stubServer({ 'site.info': () => info(false) });
    await act(() => render(<App />, root));
    await settle();
    await waitFor(() => expect(root.querySelector('h1')!.textContent).toBe('Log in'));
    expect(root.querySelector('.brand')!.textContent).toBe('Alice の日記');
    expect(document.title).toBe('Log in — Alice の日記');
    const description = document.querySelector('meta[name="description"]')?.getAttribute('content') ?? '';
    expect(description).toContain('Alice の日記');
    expect(description).toMatch(/log in/i);
    setLang('ja');
    await settle();
    expect(document.title).toBe('ログイン — Alice の日記');
    expect(document.querySelector('meta[name="description"]')!.getAttribute('content')).toContain('Alice の日記');
  });

  it('goes to login when a call answers unauthorized, and back after login', async () => {
    navigate('/security', { replace: true });
    let owner = true;
    stubServer({
      'site.info': () => info(owner),
      'notifications.count_unread': () => (owner ? { count: 0 } : { error: { code: -32000, message: 'expired', data: { code: 'unauthorized' } } }),
    });
    await act(() => render(<App />, root));
    await settle();
    expect(location.pathname).toBe('/my/security');
    owner = false;
    // The session expires: the next call is refused.
    const { call } = await import('./rpc');
    await call('notifications.count_unread').catch(() => undefined);
    await settle();
    expect(location.pathname).toBe('/my/login');
    expect(new URLSearchParams(location.search).get('next')).toBe('/security');
  });

  it('shows site.info failures with a retry', async () => {
    stubServer({ 'site.info': () => ({ error: { code: -32005, message: 'database busy', data: { code: 'unavailable' } } }) });
    await act(() => render(<App />, root));
    await settle();
    expect(root.querySelector('[role=alert]')!.textContent).toContain('busy or not ready');
    stubServer({ 'site.info': () => info(true), 'notifications.count_unread': () => ({ count: 0 }) });
    await act(() => (root.querySelector('[role=alert] button') as HTMLButtonElement).click());
    await settle();
    expect(root.querySelector('nav')).not.toBeNull();
  });

  it('shows the offline banner after a network failure', async () => {
    stubServer({ 'site.info': () => info(true), 'notifications.count_unread': () => ({ count: 0 }) });
    await act(() => render(<App />, root));
    await settle();
    expect(root.textContent).not.toContain('You are offline');
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    const { call } = await import('./rpc');
    await call('posts.list').catch(() => undefined);
    await settle();
    expect(root.textContent).toContain('You are offline');
  });
});

describe('safeNext', () => {
  it('accepts app paths only', () => {
    expect(safeNext('/compose?x=1')).toBe('/compose?x=1');
    expect(safeNext(null)).toBe('/');
    expect(safeNext('https://evil.example/')).toBe('/');
    expect(safeNext('//evil.example/')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    expect(safeNext('/login?next=/x')).toBe('/');
  });
});
