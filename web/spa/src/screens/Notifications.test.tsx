import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../app';
import { navigate } from '../router';
import { actor, button, click, fail, fakeServer, localPost, mount, remotePost, settle, unmount } from '../social/testkit';
import type { Notification } from '../social/types';
import Notifications, { listParams } from './Notifications';

const props = { params: {}, query: new URLSearchParams() };

let seq = 0;
function note(over: Partial<Notification> = {}): Notification {
  seq++;
  return { id: `0190e000-0000-7000-8000-${String(seq).padStart(12, '0')}`, kind: 'follow', actor: actor(), post: null, remote_post: null, read: false, created_at: '2026-04-10T12:00:00Z', ...over };
}

/** A notifications store the fake server reads and changes. */
function store(items: Notification[]) {
  const list = items.map((n) => ({ ...n }));
  return {
    list,
    handlers: {
      'notifications.list': (p: { unread?: boolean; kinds?: string[] }) => ({
        items: list.filter((n) => (!p.unread || !n.read) && (!p.kinds || p.kinds.includes(n.kind))),
        next_cursor: null,
      }),
      'notifications.count_unread': () => ({ count: list.filter((n) => !n.read).length }),
      'notifications.read': (p: { ids: string[] }) => {
        for (const n of list) if (p.ids.includes(n.id)) n.read = true;
        return null;
      },
      'notifications.read_all': () => {
        for (const n of list) n.read = true;
        return null;
      },
      'notifications.delete': (p: { id: string }) => {
        const i = list.findIndex((n) => n.id === p.id);
        if (i < 0) return fail('not_found');
        list.splice(i, 1);
        return null;
      },
    },
  };
}

afterEach(() => {
  unmount();
  navigate('/', { replace: true });
});

describe('listParams', () => {
  it('sends only what is set', () => {
    expect(listParams('all', false, null)).toEqual({});
    expect(listParams('mentions', true, 'c1')).toEqual({ kinds: ['mention', 'reply', 'quote'], unread: true, cursor: 'c1' });
  });
});

describe('Notifications', () => {
  it('marks one read and all read, and the nav badge follows', async () => {
    navigate('/notifications', { replace: true });
    const s = store([note(), note({ kind: 'favourite', post: localPost({ content: '<p>liked one</p>' }) }), note({ kind: 'mention', remote_post: remotePost({ content: '<p>hey @alice</p>' }) })]);
    const server = fakeServer({ 'site.info': () => ({ version: 't', domain: 'blog.example', owner: true, limits: {}, themes: [] }), 'personas.get': () => ({ id: 'p', username: 'alice', acct: 'alice@blog.example', display_name: 'Alice', avatar_path: '', url: '' }), ...s.handlers });
    const root = await mount(<App />);
    await settle();
    const badge = () => root.querySelector('nav .badge')?.textContent ?? null;
    expect(badge()).toBe('3');
    expect(root.querySelectorAll('.notification.unread')).toHaveLength(3);
    expect(root.textContent).toContain('liked your post');
    expect(root.textContent).toContain('hey @alice');

    await click(root.querySelectorAll<HTMLButtonElement>('.notification .row-actions button')[0]!);
    expect(server.of('notifications.read')).toEqual([{ ids: [s.list[0]!.id] }]);
    expect(root.querySelectorAll('.notification.unread')).toHaveLength(2);
    expect(badge()).toBe('2');

    await click(button(root, 'Mark all read'));
    expect(server.of('notifications.read_all')).toHaveLength(1);
    expect(root.querySelectorAll('.notification.unread')).toHaveLength(0);
    expect(badge()).toBeNull();
    expect(server.of('queue.tick').length).toBeGreaterThan(0);
  });

  it('deletes one, filters by kind and unread, and shows the empty states', async () => {
    const s = store([note({ kind: 'follow_request' }), note({ kind: 'reply', remote_post: remotePost() }), note({ kind: 'reblog', read: true })]);
    const server = fakeServer(s.handlers);
    const root = await mount(<Notifications {...props} />);
    expect(root.querySelector('.notification a[href="/my/follows/requests"]')!.textContent).toBe('asked to follow you');
    await click(button(root.querySelectorAll('.notification')[0] as HTMLElement, 'Delete'));
    expect(server.of('notifications.delete')).toEqual([{ id: expect.any(String) }]);
    expect(root.textContent).toContain('Notification deleted.');

    const select = root.querySelector('.filters select') as HTMLSelectElement;
    select.value = 'reblogs';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(server.of('notifications.list').at(-1)).toEqual({ kinds: ['reblog'] });
    expect(root.querySelectorAll('.notification')).toHaveLength(1);
    expect(root.querySelectorAll('.notification.unread')).toHaveLength(0);

    const unread = root.querySelector('.filters input[type=checkbox]') as HTMLInputElement;
    await click(unread);
    expect(server.of('notifications.list').at(-1)).toEqual({ kinds: ['reblog'], unread: true });
    expect(root.textContent).toContain('Nothing unread.');
  });

  it('shows a failed action and a failed list with retry', async () => {
    const s = store([note()]);
    let first = true;
    fakeServer({
      ...s.handlers,
      'notifications.list': (p: object) => (first ? ((first = false), fail('internal')) : s.handlers['notifications.list'](p)),
      'notifications.read': () => fail('unavailable', 'database busy'),
    });
    const root = await mount(<Notifications {...props} />);
    expect(root.querySelector('[role=alert]')).not.toBeNull();
    await click(button(root, 'Retry'));
    await click(button(root, 'Mark read'));
    expect(root.querySelector('[role=alert]')!.textContent).toContain('database busy');
    expect(root.querySelectorAll('.notification.unread')).toHaveLength(1);
  });
});
