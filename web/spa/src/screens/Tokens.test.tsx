import { describe, expect, it } from 'vitest';
import { button, byLabel, click, Fail, fakeServer, mount, screenTest, submit, type } from '../testing';
import Tokens from './Tokens';


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

const t = screenTest();
const render = () => mount(<Tokens params={{}} query={new URLSearchParams()} />);

describe('Tokens', () => {
  it('lists tokens by name and prefix', async () => {
    server();
    t.m = await render();
    const li = t.m.root.querySelector('.tokens li')!;
    expect(li.textContent).toContain('deploy');
    expect(li.textContent).toContain('mlg_ab12…');
    expect(li.textContent).toContain('never used');
  });

  it('creates a token and shows its secret once, with copy', async () => {
    const { s } = server();
    t.m = await render();
    await submit(t.m.root.querySelector('form'));
    expect(t.m.root.textContent).toContain('Give the token a name.');
    expect(s.paramsOf('tokens.create')).toHaveLength(0);
    await type(byLabel(t.m.root, 'Name'), ' backup ');
    await submit(t.m.root.querySelector('form'));
    expect(s.paramsOf('tokens.create')).toEqual([{ name: 'backup' }]);
    expect(t.m.root.querySelector('.secret')!.textContent).toBe('mlg_cd34SECRETSECRET');
    expect(t.m.root.textContent).toContain('shown only this once');
    expect(button(t.m.root, 'Copy')).toBeDefined();
    expect(t.m.root.querySelectorAll('.tokens li')).toHaveLength(2);
    await click(button(t.m.root, 'I copied it'));
    expect(t.m.root.textContent).not.toContain('mlg_cd34SECRETSECRET');
    expect(t.m.root.querySelector('form')).not.toBeNull();
  });

  it('revokes a token after confirming; cancel does nothing', async () => {
    const { s } = server();
    t.m = await render();
    await click(t.m.root.querySelector('button[aria-label="Revoke deploy"]'));
    await click(button(t.m.root.querySelector('[role=alertdialog]')!, 'Cancel'));
    expect(s.paramsOf('tokens.revoke')).toHaveLength(0);
    await click(t.m.root.querySelector('button[aria-label="Revoke deploy"]'));
    await click(button(t.m.root.querySelector('[role=alertdialog]')!, 'Revoke'));
    expect(s.paramsOf('tokens.revoke')).toEqual([{ id: 't1' }]);
    expect(t.m.root.textContent).toContain('No tokens.');
  });

  it('shows a list error with retry', async () => {
    const { s } = server();
    s.handlers['tokens.list'] = () => new Fail('internal', 'x', {}, -32603);
    t.m = await render();
    expect(t.m.root.querySelector('[role=alert]')!.textContent).toContain('server had a problem');
    s.handlers['tokens.list'] = () => ({ items: [], next_cursor: null });
    await click(t.m.root.querySelector('[role=alert] button'));
    expect(t.m.root.textContent).toContain('No tokens.');
  });
});
