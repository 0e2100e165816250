// Test helpers of the settings screens (not part of the app bundle): a
// fake JSON-RPC server behind a stubbed fetch, as rpc.ts talks to it.
import { render, type ComponentChild } from 'preact';
import { act } from 'preact/test-utils';
import { vi } from 'vitest';

export interface WireError {
  error: { code: number; message: string; data: { code: string; field?: string } };
}

/** An error answer; `field` is data.field and the message is prefixed with it, as the server does. */
export function refusal(field: string, message: string): WireError {
  return { error: { code: -32602, message: `${field}: ${message}`, data: { code: 'invalid', field } } };
}

export function failure(dataCode: string, message = dataCode, code = -32005): WireError {
  return { error: { code, message, data: { code: dataCode } } };
}

const isError = (r: unknown): r is WireError => typeof r === 'object' && r !== null && 'error' in r;

export interface Call {
  method: string;
  params: any;
}

/** Answers each method by its handler (unknown methods: not_found) and records the calls. */
export function stubRPC(answers: Record<string, (params: any) => unknown>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', vi.fn(async (_url: string, init: RequestInit) => {
    const req = JSON.parse(String(init.body));
    calls.push({ method: req.method, params: req.params });
    const a = answers[req.method];
    const r = a ? a(req.params) : failure('not_found', 'unknown method', -32601);
    const body = isError(r) ? { jsonrpc: '2.0', id: req.id, ...r } : { jsonrpc: '2.0', id: req.id, result: r ?? null };
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
  }));
  return calls;
}

export const callsOf = (calls: Call[], method: string) => calls.filter((c) => c.method === method);

/** Lets the pending fetches, effects and renders run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}

let root: HTMLElement | null = null;

export async function mount(node: ComponentChild): Promise<HTMLElement> {
  root = document.createElement('div');
  document.body.append(root);
  await act(() => render(node, root!));
  await settle();
  return root;
}

export function unmount(): void {
  if (root) {
    render(null, root);
    root.remove();
    root = null;
  }
  vi.unstubAllGlobals();
}

/** The form control a visible label names. */
export function byLabel(el: HTMLElement, text: string): HTMLInputElement {
  const label = [...el.querySelectorAll('label')].find((l) => l.textContent?.trim() === text);
  if (!label) throw new Error(`no label "${text}"`);
  const input = document.getElementById(label.htmlFor) as HTMLInputElement | null;
  if (!input) throw new Error(`label "${text}" names no control`);
  return input;
}

export function button(el: HTMLElement, text: string): HTMLButtonElement {
  const b = [...el.querySelectorAll('button')].find((x) => x.textContent?.trim() === text || x.getAttribute('aria-label') === text);
  if (!b) throw new Error(`no button "${text}"`);
  return b;
}

/** Types into a text control as a person would (an input event). */
export async function type(input: HTMLInputElement | HTMLTextAreaElement, value: string): Promise<void> {
  await act(() => {
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

export async function click(el: HTMLElement): Promise<void> {
  await act(() => el.click());
  await settle();
}

/** The error text shown for a control (Field's aria-describedby). */
export function errorOf(input: HTMLElement): string | null {
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
  return ids.length ? (document.getElementById(ids[0]!)?.textContent ?? null) : null;
}
