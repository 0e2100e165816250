import { describe, expect, it } from 'vitest';
import { button, byLabel, click, Fail, fakeServer, mount, screenTest, submit, type, withSite } from '../testing';
import { passwordProblems } from './security/Password';
import { describeAgent } from './security/Sessions';
import { groupSecret, isSvgDataURI, normalizeCode } from './security/TwoFactor';
import Security from './Security';


const QR = 'data:image/svg+xml;base64,PHN2Zy8+';
const sessions = [
  { id: 'aaaa', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', created_at: '2030-01-01T00:00:00Z', last_seen_at: '2030-01-02T00:00:00Z', expires_at: '2030-01-15T00:00:00Z', current: true },
  { id: 'bbbb', user_agent: 'Mozilla/5.0 (Linux; Android 15) Chrome/140.0 Mobile Safari/537.36', created_at: '2030-01-01T00:00:00Z', last_seen_at: '2030-01-01T10:00:00Z', expires_at: '2030-01-15T00:00:00Z', current: false },
];

function server(over: Record<string, (p: any) => unknown> = {}) {
  const state = { enabled: false, pending: false, left: 0 };
  const s = fakeServer({
    'sessions.list': () => ({ items: sessions, next_cursor: null }),
    'totp.status': () => ({ enabled: state.enabled, pending: state.pending, recovery_codes_left: state.left }),
    'totp.setup': (p) => {
      if (p.password !== 'pw') return new Fail('invalid', 'password: does not match', { field: 'password' });
      state.pending = true;
      return { secret: 'JBSWY3DPEHPK3PXPJBSWY3DP', otpauth_uri: 'otpauth://totp/murlog:alice@blog.example?secret=JBSWY3DPEHPK3PXPJBSWY3DP&issuer=murlog', qr_svg: QR };
    },
    'totp.verify': (p) => {
      if (p.code !== '654321') return new Fail('invalid', 'code: wrong code', { field: 'code' });
      Object.assign(state, { enabled: true, pending: false, left: 10 });
      return { enabled: true, recovery_codes: Array.from({ length: 10 }, (_, i) => `code-${String(i).padStart(4, '0')}`) };
    },
    'totp.disable': (p) => {
      if (p.password !== 'pw') return new Fail('invalid', 'password: wrong password', { field: 'password' });
      state.enabled = false;
      return { status: 'ok' };
    },
    ...over,
  });
  return { s, state };
}

const t = screenTest();
const render = () => mount(withSite(<Security params={{}} query={new URLSearchParams()} />, t));

describe('security helpers', () => {
  it('checks the new password before sending', () => {
    expect(passwordProblems('', 'short', 'short')).toEqual({ current_password: 'Enter your current password.', new_password: 'Use at least 8 characters.' });
    expect(passwordProblems('old', 'long enough', 'long enougH')).toEqual({ again: 'The two new passwords differ.' });
    expect(passwordProblems('old', 'パスワード長いです', 'パスワード長いです')).toEqual({});
  });
  it('groups the secret, normalises codes, accepts only an SVG data URI as the QR image', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('ABCDE')).toBe('ABCD E');
    expect(normalizeCode(' 123 456 ')).toBe('123456');
    expect(normalizeCode('ABCD-1234')).toBe('abcd-1234');
    expect(isSvgDataURI(QR)).toBe(true);
    expect(isSvgDataURI('javascript:alert(1)')).toBe(false);
    expect(isSvgDataURI('https://evil.example/qr.svg')).toBe(false);
  });
  it('names browsers shortly', () => {
    expect(describeAgent(sessions[0]!.user_agent)).toBe('Firefox on Linux');
    expect(describeAgent(sessions[1]!.user_agent)).toBe('Chrome on Android');
    expect(describeAgent('')).toBe('Unknown browser');
  });
});

describe('Security screen', () => {
  it('changes the password with revoke_tokens, and shows a wrong current password next to its field', async () => {
    const { s } = server({
      'auth.change_password': (p) => (p.current_password === 'old-pass' ? { status: 'ok', tokens_revoked: 2 } : new Fail('invalid', 'current_password: wrong password', { field: 'current_password' })),
    });
    t.m = await render();
    const pwForm = t.m.root.querySelector('form')!;
    await type(byLabel(t.m.root, 'Current password'), 'bad');
    await type(byLabel(t.m.root, 'New password'), 'new-password');
    await type(byLabel(t.m.root, 'New password again'), 'new-password');
    await submit(pwForm);
    const cur = byLabel(t.m.root, 'Current password')!;
    expect(cur.getAttribute('aria-invalid')).toBe('true');
    expect(t.m.root.textContent).toContain('current_password: wrong password');

    await type(cur, 'old-pass');
    await click(byLabel(t.m.root, 'Also revoke every API token'));
    await submit(pwForm);
    expect(s.paramsOf('auth.change_password').at(-1)).toEqual({ current_password: 'old-pass', new_password: 'new-password', revoke_tokens: true });
    expect(t.m.root.textContent).toContain('2 API tokens were revoked');
    expect(byLabel(t.m.root, 'Current password')!.value).toBe('');
    // the other sessions ended: the list is read again
    expect(s.paramsOf('sessions.list').length).toBe(2);
  });

  it('lists sessions with the current one marked, and logs out the others after confirming', async () => {
    const { s } = server({ 'sessions.revoke_others': () => ({ status: 'ok', revoked: 1 }) });
    t.m = await render();
    const items = [...t.m.root.querySelectorAll('.sessions li')];
    expect(items).toHaveLength(2);
    expect(items[0]!.textContent).toContain('This browser');
    expect(items[0]!.querySelector('button')).toBeNull(); // the current one is ended by "Log out" in the header
    expect(items[1]!.textContent).not.toContain('This browser');
    await click(button(t.m.root, 'Log out all other sessions'));
    expect(t.m.root.querySelector('[role=alertdialog]')).not.toBeNull();
    expect(s.paramsOf('sessions.revoke_others')).toHaveLength(0);
    const confirm = t.m.root.querySelector('[role=alertdialog]')!;
    await click(button(confirm as HTMLElement, 'Log out all other sessions'));
    expect(s.paramsOf('sessions.revoke_others')).toHaveLength(1);
    expect(t.m.root.textContent).toContain('1 sessions were logged out.');
  });

  it('sets up two-factor: the password first, QR and secret, a wrong code refused, then 10 recovery codes shown once until confirmed', async () => {
    const { s } = server();
    t.m = await render();
    expect(t.m.root.textContent).toContain('Off');
    const setupSection = t.m.root.querySelector('section[aria-labelledby=totp-h]') as HTMLElement;
    await type(byLabel(setupSection, 'Password')!, 'nope');
    await click(button(t.m.root, 'Set up two-factor login'));
    expect(byLabel(setupSection, 'Password')!.getAttribute('aria-invalid')).toBe('true');
    expect(t.m.root.querySelector('img.qr')).toBeNull();
    await type(byLabel(setupSection, 'Password')!, 'pw');
    await click(button(t.m.root, 'Set up two-factor login'));
    expect(s.paramsOf('totp.setup').at(-1)).toEqual({ password: 'pw' });
    const img = t.m.root.querySelector('img.qr') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe(QR);
    expect(img.alt).toMatch(/QR code/);
    expect(t.m.root.querySelector('.secret')!.textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP');

    const code = byLabel(t.m.root, 'Code from the app')!;
    await type(code, '12');
    await submit(code.closest('form'));
    expect(t.m.root.textContent).toContain('The code is 6 digits.');
    expect(s.paramsOf('totp.verify')).toHaveLength(0);
    await type(code, '111111');
    await submit(code.closest('form'));
    expect(t.m.root.textContent).toContain('Wrong code.');

    await type(byLabel(t.m.root, 'Code from the app'), '654 321');
    await submit(byLabel(t.m.root, 'Code from the app')!.closest('form'));
    expect(s.paramsOf('totp.verify').at(-1)).toEqual({ code: '654321' });
    const codes = [...t.m.root.querySelectorAll('.codes li')].map((li) => li.textContent);
    expect(codes).toHaveLength(10);
    expect(codes[0]).toBe('code-0000');
    const done = button(t.m.root, 'Done')!;
    expect(done.disabled).toBe(true);
    await click(byLabel(t.m.root, 'I saved them'));
    expect(done.disabled).toBe(false);
    await click(done);
    expect(t.m.root.querySelector('.codes')).toBeNull();
    expect(t.m.root.textContent).toContain('10 recovery codes left.');
    expect(t.reload).toHaveBeenCalled();
  });

  it('turns two-factor off with the password and a code', async () => {
    const { s, state } = server();
    Object.assign(state, { enabled: true, left: 2 });
    t.m = await render();
    expect(t.m.root.textContent).toContain('Few recovery codes are left.');
    await click(button(t.m.root, 'Turn two-factor login off'));
    await type(byLabel(t.m.root, 'Password'), 'bad');
    await type(byLabel(t.m.root, 'Code or recovery code'), 'ABCD-1234');
    const f = byLabel(t.m.root, 'Password')!.closest('form');
    await submit(f);
    expect(byLabel(t.m.root, 'Password')!.getAttribute('aria-invalid')).toBe('true');
    await type(byLabel(t.m.root, 'Password'), 'pw');
    await submit(f);
    expect(s.paramsOf('totp.disable').at(-1)).toEqual({ password: 'pw', code: 'abcd-1234' });
    expect(t.m.root.textContent).toContain('Off');
  });

  it('shows a failing status with retry', async () => {
    let fail = true;
    server({ 'totp.status': () => (fail ? new Fail('internal', 'x', {}, -32603) : { enabled: false, pending: true, recovery_codes_left: 0 }) });
    t.m = await render();
    const alert = [...t.m.root.querySelectorAll('[role=alert]')].find((a) => a.textContent!.includes('server had a problem'))!;
    fail = false;
    await click(alert.querySelector('button'));
    expect(t.m.root.textContent).toContain('A setup was started but not finished');
    expect(button(t.m.root, 'Start the setup again')).toBeDefined();
  });
});
