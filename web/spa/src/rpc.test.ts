import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, csrfToken, ENDPOINT, isNetworkDown, onUnauthorized, RPCError, subscribeNetwork } from './rpc';

type Handler = (req: { url: string; init: RequestInit; body: any }) => Response | Promise<Response>;

function stubFetch(handler: Handler) {
  const calls: { url: string; init: RequestInit; body: any }[] = [];
  const fn = vi.fn(async (url: string, init: RequestInit) => {
    const req = { url, init, body: JSON.parse(String(init.body)) };
    calls.push(req);
    return handler(req);
  });
  vi.stubGlobal('fetch', fn);
  return calls;
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

function clearCookies() {
  for (const c of document.cookie.split(';')) {
    const name = c.split('=')[0]!.trim();
    if (name) document.cookie = `${name}=; max-age=0`;
  }
}

beforeEach(() => clearCookies());
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  onUnauthorized(null);
});

describe('call', () => {
  it('posts a JSON-RPC request with the CSRF cookie echoed and same-origin credentials', async () => {
    document.cookie = 'other=1';
    document.cookie = 'csrf_token=abc%3D123';
    const calls = stubFetch(({ body }) => json({ jsonrpc: '2.0', id: body.id, result: { status: 'ok' } }));
    const r = await call<{ status: string }>('posts.create', { content: 'hi' });
    expect(r).toEqual({ status: 'ok' });
    expect(calls).toHaveLength(1);
    const c = calls[0]!;
    expect(c.url).toBe(ENDPOINT);
    expect(c.init.method).toBe('POST');
    expect(c.init.credentials).toBe('same-origin');
    const h = c.init.headers as Record<string, string>;
    expect(h['Content-Type']).toBe('application/json');
    expect(h['X-CSRF-Token']).toBe('abc=123');
    expect(c.body).toMatchObject({ jsonrpc: '2.0', method: 'posts.create', params: { content: 'hi' } });
    expect(typeof c.body.id).toBe('number');
  });

  it('sends {} as params when none are given (params must be an object)', async () => {
    const calls = stubFetch(({ body }) => json({ jsonrpc: '2.0', id: body.id, result: null }));
    expect(await call('auth.logout')).toBeNull();
    expect(calls[0]!.body.params).toEqual({});
  });

  it('reads no CSRF token when the cookie is missing', () => {
    expect(csrfToken()).toBe('');
  });

  it('maps an error object to RPCError with data.code, field and retry_after', async () => {
    stubFetch(({ body }) =>
      json({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'new_password: too short', data: { code: 'invalid', field: 'new_password' } } }, 400),
    );
    const err = await call('auth.change_password', {}).catch((e) => e);
    expect(err).toBeInstanceOf(RPCError);
    expect(err).toMatchObject({ code: -32602, dataCode: 'invalid', field: 'new_password', message: 'new_password: too short' });

    stubFetch(({ body }) =>
      json({ jsonrpc: '2.0', id: body.id, error: { code: -32004, message: 'too many attempts', data: { code: 'rate_limited', retry_after: 240 } } }, 429),
    );
    const rl = await call('auth.login', { password: 'x' }).catch((e) => e);
    expect(rl).toMatchObject({ dataCode: 'rate_limited', retryAfter: 240 });
  });

  it('takes retry_after from the Retry-After header when data has none', async () => {
    stubFetch(({ body }) =>
      json({ jsonrpc: '2.0', id: body.id, error: { code: -32005, message: 'busy', data: { code: 'unavailable' } } }, 503, { 'Retry-After': '7' }),
    );
    expect(await call('posts.list').catch((e) => e)).toMatchObject({ dataCode: 'unavailable', retryAfter: 7 });
  });

  it('turns a non-JSON answer into an error with a known code, never the body', async () => {
    stubFetch(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    const err = (await call('posts.list').catch((e) => e)) as RPCError;
    expect(err).toMatchObject({ dataCode: 'unavailable' });
    expect(err.message).not.toContain('html');
    stubFetch(() => new Response('', { status: 200 }));
    expect(await call('posts.list').catch((e) => e)).toMatchObject({ dataCode: 'bad_response' });
  });

  it('reports a network failure as dataCode "network" and tells the offline banner', async () => {
    const seen: boolean[] = [];
    const unsub = subscribeNetwork((d) => seen.push(d));
    stubFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await call('posts.list').catch((e) => e)).toMatchObject({ dataCode: 'network', code: 0 });
    expect(isNetworkDown()).toBe(true);
    stubFetch(({ body }) => json({ jsonrpc: '2.0', id: body.id, result: 1 }));
    await call('posts.list');
    expect(isNetworkDown()).toBe(false);
    expect(seen).toEqual([true, false]);
    unsub();
  });

  it('gives up after the timeout with dataCode "timeout"', async () => {
    vi.useFakeTimers();
    stubFetch(({ init }) => new Promise((_, reject) => {
      init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    }));
    const p = call('posts.list', {}, { timeoutMs: 1000 }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void p.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(await p).toMatchObject({ dataCode: 'timeout' });
  });

  it('uses a 15 s default timeout', async () => {
    vi.useFakeTimers();
    stubFetch(({ init }) => new Promise((_, reject) => {
      init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    }));
    const p = call('posts.list').catch((e) => e);
    await vi.advanceTimersByTimeAsync(14_999);
    await vi.advanceTimersByTimeAsync(2);
    expect(await p).toMatchObject({ dataCode: 'timeout' });
  });

  it('reports the caller\'s abort as "aborted", not as a network failure', async () => {
    stubFetch(({ init }) => new Promise((_, reject) => {
      init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    }));
    const ctrl = new AbortController();
    const p = call('posts.list', {}, { signal: ctrl.signal }).catch((e) => e);
    ctrl.abort();
    expect(await p).toMatchObject({ dataCode: 'aborted' });
    expect(isNetworkDown()).toBe(false);
  });

  it('calls the unauthorized hook for any method but auth.login', async () => {
    const hook = vi.fn();
    onUnauthorized(hook);
    stubFetch(({ body }) =>
      json({ jsonrpc: '2.0', id: body.id, error: { code: -32000, message: 'session expired', data: { code: 'unauthorized' } } }, 401),
    );
    expect(await call('posts.create', { content: 'x' }).catch((e) => e)).toMatchObject({ dataCode: 'unauthorized' });
    expect(hook).toHaveBeenCalledTimes(1);
    expect(hook.mock.calls[0]![1]).toBe('posts.create');

    // auth.login's unauthorized is a wrong password or a missing TOTP code: the login screen handles it.
    expect(await call('auth.login', { password: 'x' }).catch((e) => e)).toMatchObject({ dataCode: 'unauthorized' });
    expect(hook).toHaveBeenCalledTimes(1);
  });
});
