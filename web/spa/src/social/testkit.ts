// Test helpers for the social screens (imported by *.test.tsx only, never by
// the app): a fake JSON-RPC server behind a stubbed fetch that records every
// call with its params, sample data in the API's shapes, and mounting.
import { render, type VNode } from 'preact';
import { act } from 'preact/test-utils';
import { vi } from 'vitest';
import { setLang } from '../i18n';
import type { Actor, LocalPost, RemotePost } from './types';

export interface Fail {
  error: { code: number; message: string; data: { code: string; field?: string } };
}

export function fail(dataCode: string, message = dataCode, field?: string): Fail {
  const codes: Record<string, number> = { invalid: -32602, unauthorized: -32000, not_found: -32001, conflict: -32002, forbidden: -32003, unavailable: -32005, internal: -32603 };
  return { error: { code: codes[dataCode] ?? -32603, message, data: field ? { code: dataCode, field } : { code: dataCode } } };
}

export type Handler = (params: any) => unknown | Fail | Promise<unknown | Fail>;

export interface FakeServer {
  calls: { method: string; params: any }[];
  /** The params of every call of `method`. */
  of: (method: string) => any[];
  on: (method: string, h: Handler) => void;
}

export function fakeServer(handlers: Record<string, Handler>): FakeServer {
  const hs = { 'queue.tick': () => ({ status: 'ok' }), ...handlers } as Record<string, Handler>;
  const calls: { method: string; params: any }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit) => {
      const req = JSON.parse(String(init.body));
      calls.push({ method: req.method, params: req.params });
      const h = hs[req.method];
      const r = h ? await h(req.params) : fail('not_found', 'unknown method');
      const body = r && typeof r === 'object' && 'error' in r ? { jsonrpc: '2.0', id: req.id, ...r } : { jsonrpc: '2.0', id: req.id, result: r ?? null };
      return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return {
    calls,
    of: (m) => calls.filter((c) => c.method === m).map((c) => c.params),
    on: (m, h) => {
      hs[m] = h;
    },
  };
}

export const settle = async (rounds = 20) => {
  for (let i = 0; i < rounds; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
};

let root: HTMLElement | null = null;

export async function mount(vnode: VNode): Promise<HTMLElement> {
  setLang('en');
  root = document.createElement('div');
  document.body.append(root);
  await act(() => render(vnode, root!));
  await settle();
  return root;
}

export function unmount(): void {
  if (!root) return;
  render(null, root);
  root.remove();
  root = null;
  vi.unstubAllGlobals();
}

export function button(el: ParentNode, text: string): HTMLButtonElement | undefined {
  return [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === text);
}

export async function click(el: HTMLElement | undefined | null, rounds = 20): Promise<void> {
  if (!el) throw new Error('nothing to click');
  await act(() => el.click());
  await settle(rounds);
}

export async function type(el: HTMLInputElement | HTMLTextAreaElement | null, value: string): Promise<void> {
  if (!el) throw new Error('no input');
  await act(() => {
    el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

export function actor(over: Partial<Actor> = {}): Actor {
  return {
    id: '0190a000-0000-7000-8000-000000000001',
    uri: 'https://remote.example/users/bob',
    acct: 'bob@remote.example',
    username: 'bob',
    domain: 'remote.example',
    display_name: 'Bob',
    summary: '<p>Hi, I am Bob.</p>',
    url: 'https://remote.example/@bob',
    avatar_url: 'https://remote.example/a.png',
    header_url: '',
    type: 'Person',
    locked: false,
    fields: [],
    moved_to: '',
    fetched_at: '2026-04-10T12:00:00Z',
    ...over,
  };
}

let seq = 0;

export function remotePost(over: Partial<RemotePost> = {}): RemotePost {
  seq++;
  return {
    id: `0190b000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    uri: `https://remote.example/statuses/${seq}`,
    url: `https://remote.example/@bob/${seq}`,
    type: 'Note',
    actor: actor(),
    name: '',
    content: `<p>remote post ${seq}</p>`,
    external: false,
    summary: '',
    sensitive: false,
    visibility: 'public',
    in_reply_to: '',
    quote: null,
    language: 'en',
    attachments: [],
    tags: [],
    published_at: '2026-04-10T12:00:00Z',
    updated_at: null,
    favourited: false,
    reblogged: false,
    ...over,
  };
}

export function localPost(over: Partial<LocalPost> = {}): LocalPost {
  seq++;
  const id = `0190c000-0000-7000-8000-${String(seq).padStart(12, '0')}`;
  return {
    id,
    persona_id: '0190d000-0000-7000-8000-000000000001',
    kind: 'note',
    content: `<p>my post ${seq}</p>`,
    summary: '',
    sensitive: false,
    visibility: 'public',
    language: 'en',
    tags: [],
    in_reply_to: '',
    published_at: '2026-04-10T12:00:00Z',
    state: 'published',
    url: `https://blog.example/@alice/${id}`,
    created_at: '2026-04-10T12:00:00Z',
    updated_at: '2026-04-10T12:00:00Z',
    ...over,
  };
}

export const persona = {
  id: '0190d000-0000-7000-8000-000000000001',
  username: 'alice',
  acct: 'alice@blog.example',
  display_name: 'Alice',
  avatar_path: '',
  url: 'https://blog.example/@alice',
};
