// The JSON-RPC client of murlog's API (docs/api.md). Every call is a POST to
// /api/mur/v1/rpc with the session cookie (credentials: same-origin) and the
// double-submit CSRF header echoing the csrf_token cookie. No token is ever
// kept in the browser: the HttpOnly session cookie is the only credential.

import { createStore } from './store';

export const ENDPOINT = '/api/mur/v1/rpc';
export const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * A failed call. `dataCode` is the server's `error.data.code` (docs/api.md
 * "Errors": invalid, unauthorized, not_found, conflict, forbidden,
 * rate_limited, unavailable, locked, internal), or one of the client's own:
 * "network" (no answer), "timeout", "aborted" (the caller's signal), "bad_response".
 * `message` is the server's safe one-line message; screens show a translated
 * text chosen by dataCode (ui/errors.ts), never a raw body.
 */
export class RPCError extends Error {
  readonly code: number;
  readonly dataCode: string;
  readonly field?: string;
  readonly retryAfter?: number;

  constructor(code: number, message: string, dataCode: string, field?: string, retryAfter?: number) {
    super(message);
    this.name = 'RPCError';
    this.code = code;
    this.dataCode = dataCode;
    if (field !== undefined) this.field = field;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A page of a cursor-paginated list. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

type UnauthorizedHandler = (err: RPCError, method: string) => void;
type LockedHandler = (err: RPCError, method: string) => void;
let lockedHandler: LockedHandler | null = null;

/**
 * Registers what happens when a call answers `locked` (the owner's lockdown
 * refuses changes): the shell reads the controls again for its banner.
 */
export function onLocked(fn: LockedHandler | null): void {
  lockedHandler = fn;
}

let unauthorizedHandler: UnauthorizedHandler | null = null;

/**
 * Registers what happens when a call answers `unauthorized` (expired or ended
 * session). auth.login is exempt: there it means a wrong password or a
 * missing two-factor code, which the login screen shows itself.
 */
export function onUnauthorized(fn: UnauthorizedHandler | null): void {
  unauthorizedHandler = fn;
}

// Whether the last call failed to reach the server, for the offline banner.
const networkDown = createStore(false);

export function isNetworkDown(): boolean {
  return networkDown.get();
}

export function subscribeNetwork(fn: (down: boolean) => void): () => void {
  return networkDown.subscribe(fn);
}

const setNetworkDown = networkDown.set;

export function csrfToken(): string {
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === 'csrf_token') return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return '';
}

let nextId = 1;

interface WireError {
  code?: unknown;
  message?: unknown;
  data?: { code?: unknown; field?: unknown; retry_after?: unknown };
}

function fromWire(e: WireError, res: Response): RPCError {
  const code = typeof e.code === 'number' ? e.code : -32603;
  const message = typeof e.message === 'string' ? e.message : '';
  const d = e.data ?? {};
  const dataCode = typeof d.code === 'string' ? d.code : 'internal';
  const field = typeof d.field === 'string' && d.field !== '' ? d.field : undefined;
  let retryAfter = typeof d.retry_after === 'number' ? d.retry_after : undefined;
  if (retryAfter === undefined) {
    const h = Number(res.headers.get('Retry-After'));
    if (Number.isFinite(h) && h > 0) retryAfter = h;
  }
  return new RPCError(code, message, dataCode, field, retryAfter);
}

/** Calls one method and resolves to its result, or rejects with an RPCError. */
export async function call<T = unknown>(method: string, params?: object, opts: CallOptions = {}): Promise<T> {
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort();
  }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const onAbort = () => ctrl.abort();
  if (opts.signal) {
    if (opts.signal.aborted) ctrl.abort();
    else opts.signal.addEventListener('abort', onAbort, { once: true });
  }

  try {
    let res: Response;
    let body: unknown;
    try {
      res = await fetch(ENDPOINT, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrfToken() },
        body: JSON.stringify({ jsonrpc: '2.0', method, params: params ?? {}, id: nextId++ }),
        signal: ctrl.signal,
      });
      body = await res.json().catch(() => undefined);
    } catch {
      if (timedOut) throw new RPCError(0, 'timeout', 'timeout');
      if (opts.signal?.aborted) throw new RPCError(0, 'aborted', 'aborted');
      setNetworkDown(true);
      throw new RPCError(0, 'network', 'network');
    }
    setNetworkDown(false);

    const obj = body as { result?: unknown; error?: WireError } | undefined;
    if (obj && typeof obj === 'object' && obj.error && typeof obj.error === 'object') {
      const err = fromWire(obj.error, res);
      if (err.dataCode === 'unauthorized' && method !== 'auth.login') unauthorizedHandler?.(err, method);
      if (err.dataCode === 'locked') lockedHandler?.(err, method);
      throw err;
    }
    if (!obj || typeof obj !== 'object' || !('result' in obj)) {
      // A proxy's HTML error page or an empty body: no JSON-RPC answer at all.
      const dataCode = res.status === 502 || res.status === 503 || res.status === 504 ? 'unavailable' : 'bad_response';
      throw new RPCError(-32603, `HTTP ${res.status}`, dataCode);
    }
    return obj.result as T;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
