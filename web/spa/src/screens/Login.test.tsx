import { describe, expect, it, vi } from 'vitest';
import { act } from 'preact/test-utils';
import { RPCError } from '../rpc';
import { button, Fail, fakeServer, mount, screenTest, submit, type, withSite } from '../testing';
import Login, { loginOutcome } from './Login';


const s = screenTest();
const render = () => mount(withSite(<Login params={{}} query={new URLSearchParams()} />, s));
const input = () => s.m!.root.querySelector('input')!;
const form = () => s.m!.root.querySelector('form');

const unauthorized = (message: string, field?: string) => new Fail('unauthorized', message, field ? { field } : {}, -32000);

describe('loginOutcome', () => {
  const err = (dataCode: string, field?: string) => new RPCError(-32000, 'x', dataCode, field);
  it('moves to the code step when the server asks for one, and marks a wrong code there', () => {
    expect(loginOutcome('password', false, err('unauthorized', 'totp_code'))).toMatchObject({ step: 'totp', fieldError: null, done: false });
    expect(loginOutcome('totp', true, err('unauthorized', 'totp_code'))).toMatchObject({ step: 'totp', fieldError: 'Wrong or already used code.' });
  });
  it('a wrong password stays on (or returns to) the password step', () => {
    expect(loginOutcome('password', false, err('unauthorized'))).toMatchObject({ step: 'password', fieldError: 'Wrong password.' });
    expect(loginOutcome('totp', true, err('unauthorized'))).toMatchObject({ step: 'password' });
  });
  it('a code the server cannot read (not 6 digits nor xxxx-xxxx) is said at the code', () => {
    expect(loginOutcome('totp', true, new RPCError(-32602, 'x', 'invalid', 'totp_code'))).toMatchObject({ step: 'totp', fieldError: 'Enter the 6-digit code from the app, or a recovery code (xxxx-xxxx).' });
  });
  it('other errors are shown above the form; success is done', () => {
    expect(loginOutcome('password', false, err('rate_limited')).error?.dataCode).toBe('rate_limited');
    expect(loginOutcome('totp', true, null)).toMatchObject({ done: true });
  });
});

describe('Login screen', () => {
  it('logs in with the password alone and asks the shell to re-read site.info', async () => {
    const server = fakeServer({ 'auth.login': () => ({ status: 'ok', expires_at: '2030-01-01T00:00:00Z' }) });
    s.m = await render();
    expect(input().type).toBe('password');
    expect(input().getAttribute('autocomplete')).toBe('current-password');
    await type(input(), 'secret-pass');
    await submit(form());
    expect(server.paramsOf('auth.login')).toEqual([{ password: 'secret-pass' }]);
    expect(s.reload).toHaveBeenCalledTimes(1);
  });

  it('says a wrong password next to the field', async () => {
    fakeServer({ 'auth.login': () => unauthorized('wrong password') });
    s.m = await render();
    await type(input(), 'nope');
    await submit(form());
    expect(input().getAttribute('aria-invalid')).toBe('true');
    expect(s.m.root.textContent).toContain('Wrong password.');
    expect(s.reload).not.toHaveBeenCalled();
  });

  it('goes to the TOTP step, refuses a wrong or reused code, accepts a recovery code', async () => {
    const server = fakeServer({
      'auth.login': (p) => {
        if (!p.totp_code) return unauthorized('two-factor code required', 'totp_code');
        if (p.totp_code === '123456') return unauthorized('wrong or already used code', 'totp_code');
        return { status: 'ok', expires_at: 'x' };
      },
    });
    s.m = await render();
    await type(input(), 'right-pass');
    await submit(form());
    expect(s.m.root.textContent).toContain('Two-factor login is on.');
    const code = input();
    expect(code.name).toBe('totp_code');
    expect(code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(document.activeElement).toBe(code);
    // No error yet: the server only asked for a code.
    expect(code.getAttribute('aria-invalid')).toBeNull();

    await type(code, '123456');
    await submit(form());
    expect(s.m.root.textContent).toContain('Wrong or already used code.');
    expect(s.reload).not.toHaveBeenCalled();

    await type(input(), ' abcd-1234 ');
    await submit(form());
    expect(server.paramsOf('auth.login').at(-1)).toEqual({ password: 'right-pass', totp_code: 'abcd-1234' });
    expect(s.reload).toHaveBeenCalledTimes(1);
  });

  it('asks for the code without calling the server when it is empty; Back returns to the password', async () => {
    const server = fakeServer({ 'auth.login': () => unauthorized('two-factor code required', 'totp_code') });
    s.m = await render();
    await type(input(), 'pw');
    await submit(form());
    await submit(form());
    expect(server.paramsOf('auth.login')).toHaveLength(1);
    expect(s.m.root.textContent).toContain('Enter the code.');
    await act(() => button(s.m!.root, 'Back')!.click());
    expect(input().type).toBe('password');
  });

  it('shows the rate limit with its retry time and keeps the button disabled until then', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fakeServer({ 'auth.login': () => new Fail('rate_limited', 'too many attempts', { retry_after: 3 }, -32004) });
    s.m = await render();
    await type(input(), 'pw');
    await submit(form());
    expect(s.m.root.querySelector('[role=alert]')!.textContent).toBe('Too many attempts. Try again in 3 seconds.');
    const submitBtn = s.m.root.querySelector('button[type=submit]') as HTMLButtonElement;
    expect(submitBtn.disabled).toBe(true);
    await act(async () => { await vi.advanceTimersByTimeAsync(3100); });
    expect(submitBtn.disabled).toBe(false);
    expect(s.m.root.querySelector('[role=alert]')).toBeNull();
  });
});
