// Helpers for the Vitest tests of screens: a fake JSON-RPC server behind a
// stubbed fetch, and mounting into happy-dom's document.
import { h, render, type VNode } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, vi } from 'vitest';
import { SiteContext, type SiteInfo } from './hooks';
import { setLang } from './i18n';
import { navigate } from './router';

/** Returned (or thrown) by a handler: the call answers this JSON-RPC error. */
export class Fail {
  constructor(
    readonly dataCode: string,
    readonly message = dataCode,
    readonly data: Record<string, unknown> = {},
    readonly code = -32602,
  ) {}
}

export type Handler = (params: any) => unknown;

export interface FakeServer {
  calls: { method: string; params: any }[];
  handlers: Record<string, Handler>;
  /** The params of every call of `method`. */
  paramsOf: (method: string) => any[];
}

export function fakeServer(handlers: Record<string, Handler>): FakeServer {
  const server: FakeServer = {
    calls: [],
    handlers,
    paramsOf: (m) => server.calls.filter((c) => c.method === m).map((c) => c.params),
  };
  vi.stubGlobal('fetch', vi.fn(async (_url: string, init: RequestInit) => {
    const req = JSON.parse(String(init.body));
    server.calls.push({ method: req.method, params: req.params });
    const h = server.handlers[req.method];
    let out: unknown;
    try {
      out = h ? await h(req.params) : new Fail('not_found', 'unknown method', {}, -32601);
    } catch (e) {
      out = e;
    }
    const body = out instanceof Fail
      ? { jsonrpc: '2.0', id: req.id, error: { code: out.code, message: out.message, data: { code: out.dataCode, ...out.data } } }
      : { jsonrpc: '2.0', id: req.id, result: out ?? null };
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
  }));
  return server;
}

/** Lets promises, effects and zero-delay timers run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}

export interface Mounted {
  root: HTMLElement;
  unmount: () => void;
}

export async function mount(vnode: VNode<any>): Promise<Mounted> {
  const root = document.createElement('div');
  document.body.append(root);
  await act(() => render(vnode, root));
  await settle();
  return { root, unmount: () => { render(null, root); root.remove(); } };
}

/** Sets an input's value as typing does (an input event). */
export async function type(el: Element | null, value: string): Promise<void> {
  if (!el) throw new Error('no such input');
  const input = el as HTMLInputElement;
  await act(() => {
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

export async function click(el: Element | null | undefined): Promise<void> {
  if (!el) throw new Error('no such element');
  await act(() => (el as HTMLElement).click());
  await settle();
}

export async function submit(form: Element | null): Promise<void> {
  if (!form) throw new Error('no such form');
  await act(() => {
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
  await settle();
}

/** The button whose text is exactly `text`. */
export function button(root: Element, text: string): HTMLButtonElement | undefined {
  return [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === text);
}

/** The input labelled `label` (via <label for>). */
export function byLabel(root: Element, label: string): HTMLInputElement | null {
  const l = [...root.querySelectorAll('label')].find((x) => x.textContent?.trim() === label);
  if (!l) return null;
  return root.querySelector('#' + CSS.escape(l.htmlFor)) as HTMLInputElement | null;
}

/**
 * Waits until `check` stops throwing (lazy screens are imported and
 * transformed on first use, which takes a while on a busy machine).
 */
export async function waitFor(check: () => void, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
    }
    await act(async () => await new Promise((r) => setTimeout(r, 20)));
  }
}

export interface ScreenTest {
  /** What the test mounted; unmounted after each test. */
  m: Mounted | null;
  /** The site context's reload, a fresh mock per test. */
  reload: ReturnType<typeof vi.fn<() => Promise<void>>>;
}

/**
 * The common frame of a screen's tests: English texts, an empty
 * localStorage, and after each test the screen unmounted, fetch and timers
 * restored and the location back at "/".
 */
export function screenTest(): ScreenTest {
  const s: ScreenTest = { m: null, reload: vi.fn(async () => {}) };
  beforeEach(() => {
    setLang('en');
    localStorage.clear();
    s.reload = vi.fn(async () => {});
  });
  afterEach(() => {
    s.m?.unmount();
    s.m = null;
    vi.unstubAllGlobals();
    vi.useRealTimers();
    navigate('/', { replace: true });
  });
  return s;
}

/** `vnode` inside a SiteContext with this site.info and reload. */
export function withSite(vnode: VNode<any>, s: Pick<ScreenTest, 'reload'>, info: SiteInfo | null = null): VNode<any> {
  return h(SiteContext.Provider, { value: { info, reload: s.reload, refreshUnread: () => undefined } }, vnode);
}
