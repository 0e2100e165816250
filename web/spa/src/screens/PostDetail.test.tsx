import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'preact/test-utils';
import { counts, groupDeliveries, mergeInboxes } from '../social/deliveries';
import { forgetPersonas } from '../social/persona';
import { button, click, fail, fakeServer, localPost, mount, persona, remotePost, settle, unmount } from '../social/testkit';
import type { Deliveries, Delivery } from '../social/types';
import PostDetail, { threadParams } from './PostDetail';

const d = (inbox: string, state: Delivery['state'], last_error = '', attempts = 0): Delivery => ({ inbox, state, attempts, last_error, updated_at: '2026-04-10T12:00:00Z' });

describe('delivery grouping', () => {
  it('groups the loaded inboxes by state, failures first, unknown as pending', () => {
    const g = groupDeliveries([
      d('https://a.example/inbox', 'delivered'),
      d('https://b.example/inbox', 'failed', 'HTTP 410'),
      d('https://c.example/inbox', 'pending', 'timeout', 2),
      d('https://d.example/inbox', 'skipped'),
      d('https://e.example/inbox', 'weird' as Delivery['state']),
      d('https://f.example/inbox', 'delivered'),
    ]);
    expect(Object.keys(g)).toEqual(['failed', 'pending', 'delivered', 'skipped']);
    expect(g.failed.map((x) => x.inbox)).toEqual(['https://b.example/inbox']);
    expect(g.pending.map((x) => x.inbox)).toEqual(['https://c.example/inbox', 'https://e.example/inbox']);
    expect(g.delivered).toHaveLength(2);
    expect(g.skipped).toHaveLength(1);
    expect(counts({ delivered: 5, pending: 1, failed: 2, skipped: 0 }).total).toBe(8);
  });

  it('merges a refreshed first page over the loaded rows in inbox order', () => {
    const old = [d('https://a/i', 'pending'), d('https://b/i', 'pending'), d('https://c/i', 'pending')];
    const m = mergeInboxes(old, [d('https://a/i', 'delivered'), d('https://b/i', 'failed', 'HTTP 403')]);
    expect(m.map((x) => `${x.inbox} ${x.state}`)).toEqual(['https://a/i delivered', 'https://b/i failed', 'https://c/i pending']);
  });
});

describe('threadParams', () => {
  it('reads /post/:id and /post?uri=', () => {
    expect(threadParams({ id: 'x' }, new URLSearchParams())).toEqual({ id: 'x' });
    expect(threadParams({}, new URLSearchParams('uri=https%3A%2F%2Fr.example%2F1'))).toEqual({ uri: 'https://r.example/1' });
    expect(threadParams({}, new URLSearchParams())).toBeNull();
  });
});

describe('PostDetail', () => {
  beforeEach(() => forgetPersonas());
  afterEach(() => {
    unmount();
    vi.useRealTimers();
  });

  it('shows the thread of a remote post and no deliveries', async () => {
    const parent = localPost({ content: '<p>my question</p>' });
    const post = remotePost({ content: '<p>an answer</p>', in_reply_to: parent.url });
    const child = remotePost({ content: '<p>a follow-up</p>' });
    const server = fakeServer({
      'posts.get_thread': () => ({ ancestors: [parent], post, descendants: [child] }),
      'personas.get': () => persona,
    });
    const root = await mount(<PostDetail params={{}} query={new URLSearchParams({ uri: post.uri })} />);
    expect(server.of('posts.get_thread')).toEqual([{ uri: post.uri }]);
    expect(root.querySelector('.thread-ancestor .post-content')!.textContent).toBe('my question');
    expect(root.querySelector('.thread-focus .post-content')!.textContent).toBe('an answer');
    expect(root.querySelector('.thread-focus')!.getAttribute('aria-current')).toBe('true');
    expect(root.textContent).toContain('Replies (1)');
    expect(root.textContent).toContain('a follow-up');
    expect(root.querySelector('.deliveries')).toBeNull();
    expect(server.of('posts.deliveries')).toHaveLength(0);
  });

  it('lists where the owner\'s post went, by state with the failure reason, and refreshes every 5 s', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const post = localPost();
    let answer: Deliveries = {
      delivered: 1, pending: 1, failed: 1, skipped: 0, next_cursor: null,
      inboxes: [d('https://a.example/inbox', 'delivered'), d('https://b.example/inbox', 'failed', 'HTTP 410 Gone', 5), d('https://c.example/inbox', 'pending', 'timeout', 1)],
    };
    const server = fakeServer({
      'posts.get_thread': () => ({ ancestors: [], post, descendants: [] }),
      'posts.deliveries': () => answer,
      'personas.get': () => persona,
    });
    const root = await mount(<PostDetail params={{ id: post.id }} query={new URLSearchParams()} />);
    expect(server.of('posts.get_thread')).toEqual([{ id: post.id }]);
    expect(server.of('posts.deliveries')[0]).toEqual({ id: post.id, limit: 20 });
    const countsText = [...root.querySelectorAll('.delivery-counts li')].map((li) => li.textContent);
    expect(countsText).toEqual(['1Failed', '1Pending', '1Delivered', '0Skipped']);
    const headings = [...root.querySelectorAll('.deliveries h3')].map((h) => h.textContent);
    expect(headings).toEqual(['Failed (1)', 'Pending (1)', 'Delivered (1)']);
    expect(root.querySelector('.delivery-error')!.textContent).toBe('Reason: HTTP 410 Gone');
    expect(root.textContent).toContain('Will be retried. Last error: timeout');

    answer = { ...answer, delivered: 2, pending: 0, inboxes: [answer.inboxes[0]!, answer.inboxes[1]!, d('https://c.example/inbox', 'delivered')] };
    await act(() => {
      vi.advanceTimersByTime(5000);
    });
    await settle();
    expect(server.of('posts.deliveries').length).toBe(2);
    expect([...root.querySelectorAll('.deliveries h3')].map((h) => h.textContent)).toEqual(['Failed (1)', 'Delivered (2)']);
    // queue.tick runs on the same beat
    expect(server.of('queue.tick').length).toBeGreaterThanOrEqual(2);
  });

  it('pages the inbox list', async () => {
    const post = localPost();
    const server = fakeServer({
      'posts.get_thread': () => ({ ancestors: [], post, descendants: [] }),
      'posts.deliveries': (p: { cursor?: string }) =>
        p.cursor
          ? { delivered: 2, pending: 0, failed: 0, skipped: 0, inboxes: [d('https://b/i', 'delivered')], next_cursor: null }
          : { delivered: 2, pending: 0, failed: 0, skipped: 0, inboxes: [d('https://a/i', 'delivered')], next_cursor: 'https://a/i' },
      'personas.get': () => persona,
    });
    const root = await mount(<PostDetail params={{ id: post.id }} query={new URLSearchParams()} />);
    expect(root.querySelectorAll('.deliveries .inbox')).toHaveLength(1);
    await click(button(root.querySelector('.deliveries')!, 'Load more'));
    expect(server.of('posts.deliveries')[1]).toEqual({ id: post.id, cursor: 'https://a/i', limit: 20 });
    expect([...root.querySelectorAll('.deliveries .inbox')].map((e) => e.textContent)).toEqual(['https://a/i', 'https://b/i']);
    expect(button(root.querySelector('.deliveries')!, 'Load more')).toBeUndefined();
  });

  it('shows a missing post with retry, and adds a reply posted here', async () => {
    const post = remotePost();
    let n = 0;
    const server = fakeServer({
      'posts.get_thread': () => (n++ === 0 ? fail('not_found', 'post not found') : { ancestors: [], post, descendants: [] }),
      'posts.create': () => localPost({ content: '<p>my reply</p>' }),
    });
    const root = await mount(<PostDetail params={{}} query={new URLSearchParams({ uri: post.uri })} />);
    expect(root.querySelector('[role=alert]')!.textContent).toContain('does not exist');
    await click(button(root, 'Retry'));
    expect(root.textContent).toContain('No replies that this site knows of.');
    await click(button(root.querySelector('.thread-focus')!, 'Reply'));
    await act(() => (root.querySelector('.reply-box') as HTMLFormElement).requestSubmit());
    await settle();
    expect(server.of('posts.create')[0].in_reply_to).toBe(post.uri);
    expect(root.textContent).toContain('Replies (1)');
    expect(root.textContent).toContain('my reply');
  });

  it('says so when the address names no post', async () => {
    fakeServer({});
    const root = await mount(<PostDetail params={{}} query={new URLSearchParams()} />);
    expect(root.textContent).toContain('This address names no post.');
  });
});
