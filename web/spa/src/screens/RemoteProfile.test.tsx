import { afterEach, describe, expect, it } from 'vitest';
import { navigate } from '../router';
import { shortURI } from '../social/RemoteLists';
import { actor, button, click, fail, fakeServer, mount, remotePost, unmount } from '../social/testkit';
import type { Actor } from '../social/types';
import RemoteProfile, { profileRequest } from './RemoteProfile';

const rel = { following: 'none', followed_by: 'none', blocking: false, blocked_by: false, domain_blocking: false } as const;
const bob = (over: Partial<Actor> = {}) => actor({ relationship: { ...rel }, ...over });
const byId = (id: string, q = '') => ({ params: { id }, query: new URLSearchParams(q) });

afterEach(() => {
  unmount();
  navigate('/', { replace: true });
});

describe('profileRequest', () => {
  it('gets by id, looks up a checked handle, refuses a malformed one', () => {
    expect(profileRequest({ id: 'x' }, new URLSearchParams())).toEqual({ method: 'actors.get', params: { id: 'x' } });
    expect(profileRequest({}, new URLSearchParams('q=@bob@R.example'))).toEqual({ method: 'actors.lookup', params: { q: '@bob@r.example' } });
    expect(profileRequest({}, new URLSearchParams('q=nonsense'))).toEqual({ refused: 'format' });
    expect(profileRequest({}, new URLSearchParams())).toEqual({ refused: 'empty' });
    expect(shortURI('https://r.example/users/bob')).toBe('r.example/users/bob');
  });
});

describe('RemoteProfile', () => {
  it('shows the profile: names as text, bio and field values as sanitized HTML, and the outbox', async () => {
    const a = bob({
      display_name: '<img src=x onerror=alert(1)>',
      summary: '<p>I <em>like</em> cats</p>',
      header_url: 'https://remote.example/h.png',
      fields: [{ name: '<b>site</b>', value: '<a href="https://bob.example" rel="nofollow">bob.example</a>' }],
      locked: true,
    });
    const server = fakeServer({ 'actors.get': () => a, 'actors.outbox': () => ({ items: [remotePost({ content: '<p>from the outbox</p>' })], next_cursor: 'https://remote.example/outbox?page=2' }) });
    const root = await mount(<RemoteProfile {...byId(a.id)} />);
    expect(server.of('actors.get')).toEqual([{ id: a.id }]);
    expect(root.querySelector('img[src="x"]')).toBeNull();
    expect(root.querySelector('h1')!.textContent).toBe('<img src=x onerror=alert(1)>');
    expect(root.querySelector('.profile-names .actor-name')!.textContent).toBe('<img src=x onerror=alert(1)>');
    expect(root.querySelector('.profile-bio em')!.textContent).toBe('like');
    expect(root.querySelector('.profile-fields dt')!.textContent).toBe('<b>site</b>');
    expect(root.querySelector('.profile-fields dd a')!.getAttribute('href')).toBe('https://bob.example');
    expect(root.querySelector('.profile-header')!.getAttribute('src')).toBe('https://remote.example/h.png');
    expect(root.textContent).toContain('Approves followers');
    expect(button(root, 'Ask to follow')).toBeDefined();
    expect(root.textContent).toContain('from the outbox');
    await click(button(root, 'Load more'));
    expect(server.of('actors.outbox')).toEqual([{ id: a.id }, { id: a.id, cursor: 'https://remote.example/outbox?page=2' }]);
  });

  it('looks up ?q=, names an unreachable server, and refuses a malformed q without a call', async () => {
    const server = fakeServer({ 'actors.lookup': () => fail('unavailable', 'gone.example: timeout', 'q') });
    const root = await mount(<RemoteProfile params={{}} query={new URLSearchParams('q=@bob@gone.example')} />);
    expect(server.of('actors.lookup')).toEqual([{ q: '@bob@gone.example' }]);
    expect(root.querySelector('[role=alert]')!.textContent).toContain('The server gone.example could not be reached');
    expect(root.querySelector('[role=alert]')!.textContent).toContain('timeout');
    expect(button(root, 'Retry')).toBeDefined();
    unmount();
    const s2 = fakeServer({});
    const r2 = await mount(<RemoteProfile params={{}} query={new URLSearchParams('q=bob')} />);
    expect(r2.querySelector('[role=alert]')!.textContent).toContain('That is not an account address');
    expect(s2.calls.filter((c) => c.method !== 'queue.tick')).toHaveLength(0);
  });

  it('follows, unfollows after confirming, blocks after confirming and unblocks', async () => {
    const a = bob();
    const server = fakeServer({
      'actors.get': () => a,
      'actors.outbox': () => ({ items: [], next_cursor: null }),
      'follows.create': () => ({ id: 'f', actor: a, state: 'accepted', created_at: '' }),
      'follows.delete': () => null,
      'blocks.create': () => null,
      'blocks.delete': () => null,
    });
    const root = await mount(<RemoteProfile {...byId(a.id)} />);
    await click(button(root, 'Follow'));
    expect(server.of('follows.create')).toEqual([{ actor_id: a.id }]);
    expect(root.querySelector('.profile-actions [role=status]')!.textContent).toBe('You follow them');
    await click(button(root, 'Unfollow'));
    await click(button(root.querySelector('[role=alertdialog]')!, 'Unfollow'));
    expect(server.of('follows.delete')).toEqual([{ actor_id: a.id }]);
    expect(button(root, 'Follow')).toBeDefined();
    await click(button(root, 'Block'));
    expect(server.of('blocks.create')).toHaveLength(0);
    await click(button(root.querySelector('[role=alertdialog]')!, 'Block'));
    expect(server.of('blocks.create')).toEqual([{ actor_id: a.id }]);
    expect(button(root, 'Follow')!.disabled).toBe(true);
    await click(button(root, 'Unblock'));
    expect(server.of('blocks.delete')).toEqual([{ actor_id: a.id }]);
    expect(button(root, 'Block')).toBeDefined();
  });

  it('shows a refused follow', async () => {
    const a = bob();
    fakeServer({ 'actors.get': () => a, 'actors.outbox': () => ({ items: [], next_cursor: null }), 'follows.create': () => fail('forbidden', 'remote.example is blocked') });
    const root = await mount(<RemoteProfile {...byId(a.id)} />);
    await click(button(root, 'Follow'));
    expect(root.querySelector('.profile-actions [role=alert]')!.textContent).toContain('remote.example is blocked');
    expect(button(root, 'Follow')).toBeDefined();
  });

  it('pages followers, and says when a list is hidden', async () => {
    const a = bob();
    const server = fakeServer({
      'actors.get': () => a,
      'actors.followers': (p: { cursor?: string }) =>
        p.cursor ? { items: [{ uri: 'https://x.example/users/2' }], total: null, next_cursor: null } : { items: [{ uri: 'https://x.example/users/1' }], total: 2, next_cursor: 'p2' },
      'actors.following': () => ({ items: [], total: 57, next_cursor: null }),
    });
    const root = await mount(<RemoteProfile {...byId(a.id, 'tab=followers')} />);
    expect(root.querySelector('.tabs a[aria-current=page]')!.textContent).toBe('Followers');
    expect(root.textContent).toContain('2 in all');
    await click(button(root, 'Load more'));
    expect(server.of('actors.followers')).toEqual([{ id: a.id }, { id: a.id, cursor: 'p2' }]);
    const links = [...root.querySelectorAll('.list a')];
    expect(links.map((l) => l.textContent)).toEqual(['x.example/users/1', 'x.example/users/2']);
    expect(links[0]!.getAttribute('href')).toBe('/my/actor?q=' + encodeURIComponent('https://x.example/users/1'));
    unmount();
    fakeServer({ 'actors.get': () => a, 'actors.following': () => ({ items: [], total: 57, next_cursor: null }) });
    const r2 = await mount(<RemoteProfile {...byId(a.id, 'tab=following')} />);
    expect(r2.textContent).toContain('shows only the number (57)');
  });
});
