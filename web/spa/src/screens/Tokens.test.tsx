import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setLang } from '../i18n';
import { button, byLabel, click, Fail, fakeServer, mount, submit, type, type Mounted } from '../testing';
import Tokens from './Tokens';

let m: Mounted | null = null;
beforeEach(() => setLang('en'));
afterEach(() => {
  m?.unmount();
  m = null;
  vi.unstubAllGlobals();
});

function server() {
  const tokens = [{ id: 't1', name: 'deploy', prefix: 'mlg_ab12', created_at: '2030-01-01T00:00:00Z', last_used_at: null as string | null }];
  const s = fakeServer({
    'tokens.list': () => ({ items: tokens, next_cursor: null }),
    'tokens.create': (p) => {
      const tok = { id: 't2', name: p.name, prefix: 'mlg_cd34', created_at: '2030-01-02T00:00:00Z', last_used_at: null };
      tokens.push(tok);
      return { ...tok, token: 'mlg_cd34SECRETSECRET' };
    },
    'tokens.revoke': (p) => {
      const i = tokens.findIndex((t) => t.id === p.id);
      if (i < 0) return new Fail('not_found', 'token not found', {}, -32001);
      tokens.splice(i, 1);
      return { status: 'ok' };
    },
  });
  return { s, tokens };
}

const render = () => mount(<Tokens params={{}} query={new URLSearchParams()} />);

describe('Tokens', () => {
  it('lists tokens by name and prefix', async () => {
    server();
    m = await render();
    const li = m.root.querySelector('.tokens li')!;
    expect(li.textContent).toContain('deploy');
    expect(li.textContent).toContain('mlg_ab12…');
    expect(li.textContent).toContain('never used');
  });

  it('creates a token and shows its secret once, with copy', async () => {
    const { s } = server();
    m = await render();
    await submit(m.root.querySelector('form'));
    expect(m.root.textContent).toContain('Give the token a name.');
    expect(s.paramsOf('tokens.create')).toHaveLength(0);
    await type(byLabel(m.root, 'Name'), ' backup ');
    await submit(m.root.querySelector('form'));
    expect(s.paramsOf('tokens.create')).toEqual([{ name: 'backup' }]);
    expect(m.root.querySelector('.secret')!.textContent).toBe('mlg_cd34SECRETSECRET');
    expect(m.root.textContent).toContain('shown only this once');
    expect(button(m.root, 'Copy')).toBeDefined();
    expect(m.root.querySelectorAll('.tokens li')).toHaveLength(2);
    await click(button(m.root, 'I copied it'));
    expect(m.root.textContent).not.toContain('mlg_cd34SECRETSECRET');
    expect(m.root.querySelector('form')).not.toBeNull();
  });

  it('revokes a token after confirming; cancel does nothing', async () => {
    const { s } = server();
    m = await render();
    await click(m.root.querySelector('button[aria-label="Revoke deploy"]'));
    await click(button(m.root.querySelector('[role=alertdialog]')!, 'Cancel'));
    expect(s.paramsOf('tokens.revoke')).toHaveLength(0);
    await click(m.root.querySelector('button[aria-label="Revoke deploy"]'));
    await click(button(m.root.querySelector('[role=alertdialog]')!, 'Revoke'));
    expect(s.paramsOf('tokens.revoke')).toEqual([{ id: 't1' }]);
    expect(m.root.textContent).toContain('No tokens.');
  });

  it('shows a list error with retry', async () => {
    const { s } = server();
    s.handlers['tokens.list'] = () => new Fail('internal', 'x', {}, -32603);
    m = await render();
    expect(m.root.querySelector('[role=alert]')!.textContent).toContain('server had a problem');
    s.handlers['tokens.list'] = () => ({ items: [], next_cursor: null });
    await click(m.root.querySelector('[role=alert] button'));
    expect(m.root.textContent).toContain('No tokens.');
  });
});
