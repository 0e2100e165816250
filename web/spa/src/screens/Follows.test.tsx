import { afterEach, describe, expect, it } from 'vitest';
import { actor, button, click, fail, fakeServer, mount, settle, type, unmount } from '../social/testkit';
import type { Follow } from '../social/types';
import Follows, { tabOf } from './Follows';

const at = (tab?: string) => ({ params: (tab ? { tab } : {}) as Record<string, string>, query: new URLSearchParams() });
const rel = { following: 'none', followed_by: 'none', blocking: false, blocked_by: false, domain_blocking: false } as const;

function follow(n: number, over: Partial<Follow> = {}): Follow {
  const a = actor({ id: `0190a000-0000-7000-8000-00000000010${n}`, acct: `u${n}@r.example`, display_name: `User ${n}`, relationship: { ...rel } });
  return { id: `f${n}`, actor: a, state: 'accepted', created_at: '2026-04-10T12:00:00Z', ...over };
}

async function submitHandle(root: HTMLElement, value: string) {
  await type(root.querySelector('.handle-form input') as HTMLInputElement, value);
  await click(button(root.querySelector('.handle-form')!, 'Follow'));
}

afterEach(() => unmount());

describe('Follows', () => {
  it('picks the tab from the path', () => {
    expect(tabOf(undefined)).toBe('following');
    expect(tabOf('requests')).toBe('requests');
    expect(tabOf('nonsense')).toBe('following');
  });

  it('refuses a malformed handle without asking the server', async () => {
    const server = fakeServer({ 'follows.list': () => ({ items: [], next_cursor: null }) });
    const root = await mount(<Follows {...at()} />);
    await submitHandle(root, 'alice@');
    const input = root.querySelector('.handle-form input')!;
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const err = document.getElementById(input.getAttribute('aria-describedby')!.split(' ').find((x) => x.endsWith('-error'))!)!;
    expect(err.textContent).toContain('That is not an account address');
    expect(server.of('actors.lookup')).toHaveLength(0);
    await submitHandle(root, '');
    expect(root.querySelector('.field-error')!.textContent).toContain("Type the account's address");
  });

  it('names the unreachable server with its reason', async () => {
    fakeServer({
      'follows.list': () => ({ items: [], next_cursor: null }),
      'actors.lookup': () => fail('unavailable', 'gone.example: dial tcp: connection refused', 'q'),
    });
    const root = await mount(<Follows {...at()} />);
    await submitHandle(root, '@bob@gone.example');
    const msg = root.querySelector('.field-error')!.textContent!;
    expect(msg).toContain('The server gone.example could not be reached');
    expect(msg).toContain('connection refused');
  });

  it('follows by handle: lookup, follows.create, and the list reloads', async () => {
    const bob = actor({ relationship: { ...rel } });
    let list: Follow[] = [];
    const server = fakeServer({
      'follows.list': () => ({ items: list, next_cursor: null }),
      'actors.lookup': () => bob,
      'follows.create': () => {
        list = [{ id: 'f1', actor: bob, state: 'pending', created_at: '2026-04-10T12:00:00Z' }];
        return list[0];
      },
    });
    const root = await mount(<Follows {...at()} />);
    expect(root.textContent).toContain('You follow nobody yet.');
    await submitHandle(root, '@Bob@Remote.Example');
    expect(server.of('actors.lookup')).toEqual([{ q: '@Bob@remote.example' }]);
    expect(server.of('follows.create')).toEqual([{ actor_id: bob.id }]);
    expect(root.querySelector('[role=status].card')!.textContent).toContain('Follow request sent to @bob@remote.example');
    expect(root.querySelector('.state-tag')!.textContent).toBe('Awaiting approval');
    expect((root.querySelector('.handle-form input') as HTMLInputElement).value).toBe('');
  });

  it('says when the account is already followed', async () => {
    fakeServer({
      'follows.list': () => ({ items: [], next_cursor: null }),
      'actors.lookup': () => actor(),
      'follows.create': () => fail('conflict', 'already following'),
    });
    const root = await mount(<Follows {...at()} />);
    await submitHandle(root, '@bob@remote.example');
    expect(root.querySelector('.field-error')!.textContent).toContain('You already follow @bob@remote.example');
  });

  it('unfollows after confirming; cancel does nothing', async () => {
    const server = fakeServer({ 'follows.list': () => ({ items: [follow(1), follow(2)], next_cursor: null }), 'follows.delete': () => null });
    const root = await mount(<Follows {...at('following')} />);
    expect(root.querySelector('.tabs a[aria-current=page]')!.textContent).toBe('Following');
    await click(button(root.querySelectorAll('.list > li')[0] as HTMLElement, 'Unfollow'));
    expect(root.querySelector('[role=alertdialog]')!.textContent).toContain('Stop following User 1?');
    expect(document.activeElement!.textContent).toBe('Cancel');
    await click(button(root, 'Cancel'));
    expect(root.querySelector('[role=alertdialog]')).toBeNull();
    expect(server.of('follows.delete')).toHaveLength(0);
    await click(button(root.querySelectorAll('.list > li')[1] as HTMLElement, 'Unfollow'));
    await click(button(root.querySelector('[role=alertdialog]')!, 'Unfollow'));
    expect(server.of('follows.delete')).toEqual([{ actor_id: follow(2).actor.id }]);
    expect(root.querySelectorAll('.list > li')[1]!.textContent).toContain('Unfollowed.');
  });

  it('removes a follower', async () => {
    const server = fakeServer({ 'followers.list': () => ({ items: [follow(3)], next_cursor: null }), 'followers.delete': () => null });
    const root = await mount(<Follows {...at('followers')} />);
    expect(server.of('followers.list')).toEqual([{}]);
    await click(button(root, 'Remove'));
    await click(button(root.querySelector('[role=alertdialog]')!, 'Remove'));
    expect(server.of('followers.delete')).toEqual([{ actor_id: follow(3).actor.id }]);
    expect(root.textContent).toContain('Removed.');
  });

  it('approves and rejects requests, showing a refusal', async () => {
    const server = fakeServer({
      'followers.pending': () => ({ items: [follow(4, { state: 'pending' }), follow(5, { state: 'pending' })], next_cursor: null }),
      'followers.approve': () => ({}),
      'followers.reject': () => fail('conflict', 'already accepted'),
    });
    const root = await mount(<Follows {...at('requests')} />);
    const rows = () => root.querySelectorAll('.list > li');
    await click(button(rows()[0] as HTMLElement, 'Approve'));
    expect(server.of('followers.approve')).toEqual([{ actor_id: follow(4).actor.id }]);
    expect(rows()[0]!.textContent).toContain('Approved');
    await click(button(rows()[1] as HTMLElement, 'Reject'));
    await click(button(root.querySelector('[role=alertdialog]')!, 'Reject'));
    await settle();
    expect(server.of('followers.reject')).toEqual([{ actor_id: follow(5).actor.id }]);
    expect(root.querySelector('.error-box')!.textContent).toContain('already accepted');
    expect(rows()[1]!.textContent).not.toContain('Rejected.');
  });

  it('shows each tab\'s empty state and a list error with retry', async () => {
    let n = 0;
    fakeServer({ 'followers.pending': () => (n++ === 0 ? fail('internal') : { items: [], next_cursor: null }) });
    const root = await mount(<Follows {...at('requests')} />);
    expect(root.querySelector('[role=alert]')).not.toBeNull();
    await click(button(root, 'Retry'));
    expect(root.textContent).toContain('No follow requests waiting.');
  });
});
