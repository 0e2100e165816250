import { afterEach, describe, expect, it } from 'vitest';
import { actor, button, click, fail, fakeServer, mount, settle, type, unmount } from '../social/testkit';
import type { Actor, DomainBlock } from '../social/types';
import Blocks from './Blocks';

const props = { params: {}, query: new URLSearchParams() };

function server(blocked: Actor[] = [], domains: DomainBlock[] = [], extra: Record<string, (p: any) => unknown> = {}) {
  return fakeServer({
    'blocks.list': () => ({ items: blocked, next_cursor: null }),
    'domain_blocks.list': () => ({ items: domains, next_cursor: null }),
    ...extra,
  });
}

const domainSection = (root: HTMLElement) => root.querySelector('section[aria-labelledby=blocks-domains]') as HTMLElement;
const accountSection = (root: HTMLElement) => root.querySelector('section[aria-labelledby=blocks-accounts]') as HTMLElement;

afterEach(() => unmount());

describe('Blocks', () => {
  it('shows both empty states', async () => {
    server();
    const root = await mount(<Blocks {...props} />);
    expect(root.textContent).toContain('You block no account.');
    expect(root.textContent).toContain('You block no server.');
  });

  it('blocks an account by handle only after confirming, then lists it', async () => {
    const evil = actor({ display_name: '<script>x</script>' });
    let blocked: Actor[] = [];
    const s = server([], [], {
      'actors.lookup': () => evil,
      'blocks.create': () => {
        blocked = [evil];
        return null;
      },
    });
    s.on('blocks.list', () => ({ items: blocked, next_cursor: null }));
    const root = await mount(<Blocks {...props} />);
    const sec = accountSection(root);
    await type(sec.querySelector('input'), '@bob@remote.example');
    await click(button(sec, 'Block'));
    expect(s.of('actors.lookup')).toEqual([{ q: '@bob@remote.example' }]);
    expect(s.of('blocks.create')).toHaveLength(0);
    const dialog = sec.querySelector('[role=alertdialog]')!;
    expect(dialog.textContent).toContain('Block <script>x</script>?');
    expect(root.querySelector('script')).toBeNull();
    await click(button(dialog as HTMLElement, 'Block'));
    expect(s.of('blocks.create')).toEqual([{ actor_id: evil.id }]);
    expect(sec.querySelector('.list .actor-name')!.textContent).toBe('<script>x</script>');
  });

  it('unblocks an account after confirming', async () => {
    const a = actor();
    const s = server([a], [], { 'blocks.delete': () => null });
    const root = await mount(<Blocks {...props} />);
    const sec = accountSection(root);
    await click(button(sec, 'Unblock'));
    await click(button(sec, 'Cancel'));
    expect(s.of('blocks.delete')).toHaveLength(0);
    await click(button(sec, 'Unblock'));
    await click(button(sec.querySelector('[role=alertdialog]') as HTMLElement, 'Unblock'));
    expect(s.of('blocks.delete')).toEqual([{ actor_id: a.id }]);
    expect(sec.textContent).toContain('Unblocked.');
  });

  it('checks the domain, confirms, blocks, and shows the server\'s refusal next to the field', async () => {
    let domains: DomainBlock[] = [];
    const s = server([], [], {
      'domain_blocks.create': (p: { domain: string; reason: string }) => {
        if (domains.some((d) => d.domain === p.domain)) return fail('conflict', 'spam.example is already blocked', 'domain');
        domains = [{ domain: p.domain, reason: p.reason, created_at: '2026-04-10T12:00:00Z' }];
        return domains[0];
      },
    });
    s.on('domain_blocks.list', () => ({ items: domains, next_cursor: null }));
    const root = await mount(<Blocks {...props} />);
    const sec = domainSection(root);
    const input = sec.querySelector('input') as HTMLInputElement;
    await type(input, 'https://spam.example/');
    await click(button(sec, 'Block the server'));
    expect(sec.querySelector('.field-error')!.textContent).toContain('That is not a server');
    expect(sec.querySelector('[role=alertdialog]')).toBeNull();

    await type(input, 'Spam.Example');
    await type(sec.querySelector('textarea'), 'spam <b>waves</b>');
    await click(button(sec, 'Block the server'));
    expect(s.of('domain_blocks.create')).toHaveLength(0);
    await click(button(sec.querySelector('[role=alertdialog]') as HTMLElement, 'Block the server'));
    expect(s.of('domain_blocks.create')).toEqual([{ domain: 'spam.example', reason: 'spam <b>waves</b>' }]);
    await settle();
    expect(sec.querySelector('.list .inbox')!.textContent).toBe('spam.example');
    expect(sec.querySelector('.list .hint')!.textContent).toBe('spam <b>waves</b>');

    await type(input, 'spam.example');
    await click(button(sec, 'Block the server'));
    await click(button(sec.querySelector('[role=alertdialog]') as HTMLElement, 'Block the server'));
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(sec.querySelector('.field-error')!.textContent).toContain('spam.example is already blocked');
  });

  it('counts the reason and refuses one over 1,000 characters', async () => {
    server();
    const root = await mount(<Blocks {...props} />);
    const sec = domainSection(root);
    await type(sec.querySelector('textarea'), 'x'.repeat(1001));
    expect(button(sec, 'Block the server')!.disabled).toBe(true);
    expect(sec.querySelector('.counter.over')!.textContent).toBe('1001 / 1000');
  });

  it('unblocks a server after confirming, and shows a list error with retry', async () => {
    let n = 0;
    const s = server([], [], { 'domain_blocks.delete': () => null });
    s.on('domain_blocks.list', () => (n++ === 0 ? fail('internal') : { items: [{ domain: 'bad.example', reason: '', created_at: '2026-04-10T12:00:00Z' }], next_cursor: null }));
    const root = await mount(<Blocks {...props} />);
    const sec = domainSection(root);
    expect(sec.querySelector('[role=alert]')).not.toBeNull();
    await click(button(sec, 'Retry'));
    await click(button(sec, 'Unblock'));
    await click(button(sec.querySelector('[role=alertdialog]') as HTMLElement, 'Unblock'));
    expect(s.of('domain_blocks.delete')).toEqual([{ domain: 'bad.example' }]);
    expect(sec.textContent).toContain('Unblocked.');
  });
});
