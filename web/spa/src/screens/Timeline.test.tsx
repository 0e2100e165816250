import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'preact/test-utils';
import { forgetPersonas } from '../social/persona';
import { actor, button, click, fail, fakeServer, localPost, mount, persona, remotePost, settle, type, unmount } from '../social/testkit';
import type { TimelineItem } from '../social/types';
import Timeline, { hasNewer, NEW_POSTS_POLL_MS } from './Timeline';

const props = { params: {}, query: new URLSearchParams() };

function item(post: TimelineItem['post'], over: Partial<TimelineItem> = {}): TimelineItem {
  return { id: 'it-' + post.id, kind: 'actor' in post ? 'remote' : 'local', post, boosted_by: null, at: '2026-04-10T12:00:00Z', ...over };
}

function onePage(items: TimelineItem[]) {
  return () => ({ items, next_cursor: null });
}

beforeEach(() => forgetPersonas());
afterEach(() => unmount());

describe('Timeline', () => {
  it('shows a hostile display name as text and runs nothing', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const p = remotePost({ actor: actor({ display_name: evil, acct: 'e<b>v</b>il@remote.example' }) });
    fakeServer({ 'timeline.home': onePage([item(p, { boosted_by: actor({ display_name: '<script>alert(2)</script>' }) })]) });
    const root = await mount(<Timeline {...props} />);
    expect(root.querySelector('img[src="x"]')).toBeNull();
    expect(root.querySelector('script')).toBeNull();
    expect(root.querySelector('b')).toBeNull();
    expect(root.querySelector('.post-author .actor-name')!.textContent).toBe(evil);
    expect(root.querySelector('.post-author .acct')!.textContent).toBe('@e<b>v</b>il@remote.example');
    expect(root.querySelector('.boosted-by a')!.textContent).toBe('<script>alert(2)</script>');
    // the server's sanitized content is HTML
    expect(root.querySelector('.post-content p')!.textContent).toMatch(/^remote post/);
  });

  it('keeps at most 200 posts in the DOM while 1,000 are scrolled through', async () => {
    const all = Array.from({ length: 1000 }, () => item(remotePost()));
    const server = fakeServer({
      'timeline.home': (p: { cursor?: string; limit?: number }) => {
        const start = p.cursor ? all.findIndex((x) => x.id === p.cursor) + 1 : 0;
        const n = p.limit ?? 20;
        const items = all.slice(start, start + n);
        return { items, next_cursor: start + n < all.length ? items[items.length - 1]!.id : null };
      },
    });
    const root = await mount(<Timeline {...props} />);
    expect(root.querySelectorAll('article.post')).toHaveLength(20);
    let most = 0;
    for (let i = 0; i < 49; i++) {
      await click(button(root, 'Load more'), 4);
      most = Math.max(most, root.querySelectorAll('article.post').length);
    }
    expect(most).toBeLessThanOrEqual(200);
    expect(root.querySelectorAll('article.post')).toHaveLength(200);
    expect(root.querySelector('ul.list > li:last-child .post-content')!.textContent).toBe(all[999]!.post.content.replace(/<\/?p>/g, ''));
    expect(button(root, 'Load more')).toBeUndefined();
    expect(server.of('timeline.home').filter((p) => p.cursor)).toHaveLength(49);
  }, 60_000);

  it('shows an article as its title, excerpt and a read-more link, not the whole text', async () => {
    const a = localPost({
      kind: 'article', title: 'On tea', excerpt: 'Brewing Green tea wants cooler water…',
      content: '<h2>Brewing</h2><p>Green tea wants cooler water than black tea.</p><h2>Keeping</h2><p>Dark and dry.</p>',
    });
    const n = localPost({ content: '<p>A note is shown whole.</p>' });
    fakeServer({ 'timeline.home': onePage([item(a), item(n)]) });
    const root = await mount(<Timeline {...props} />);
    const [art, note] = [...root.querySelectorAll('article.post')] as HTMLElement[];
    expect(art!.querySelector('h2, .post-content')).toBeNull();
    expect(art!.querySelector('.post-title a')!.textContent).toBe('On tea');
    expect(art!.querySelector('.post-title a')!.getAttribute('href')).toBe('/my/post/' + a.id);
    expect(art!.querySelector('.post-excerpt')!.textContent).toBe('Brewing Green tea wants cooler water…');
    const more = art!.querySelector('a.read-more')!;
    expect(more.getAttribute('href')).toBe('/my/post/' + a.id);
    expect(more.textContent).toBe('Read more: On tea');
    expect(note!.querySelector('.post-content')!.textContent).toBe('A note is shown whole.');
    expect(note!.querySelector('.read-more')).toBeNull();
  });

  it('likes at once and rolls back when the server refuses', async () => {
    const p = remotePost();
    let answer: (v: unknown) => void = () => undefined;
    const server = fakeServer({
      'timeline.home': onePage([item(p)]),
      'favourites.create': () => new Promise((r) => (answer = r)),
    });
    const root = await mount(<Timeline {...props} />);
    const like = root.querySelector('.action-like') as HTMLButtonElement;
    expect(like.getAttribute('aria-pressed')).toBe('false');
    await act(() => like.click());
    // optimistic: pressed before the server answered
    expect(root.querySelector('.action-like')!.getAttribute('aria-pressed')).toBe('true');
    expect(server.of('favourites.create')).toEqual([{ post_id: p.id }]);
    answer(fail('forbidden', 'the author blocks you'));
    await settle();
    expect(root.querySelector('.action-like')!.getAttribute('aria-pressed')).toBe('false');
    expect(root.querySelector('.action-error [role=alert]')!.textContent).toContain('the author blocks you');
  });

  it('boosts and unboosts; a boost refused rolls back too', async () => {
    const p = remotePost({ reblogged: false });
    const server = fakeServer({
      'timeline.home': onePage([item(p)]),
      'reblogs.create': () => ({ status: 'ok' }),
      'reblogs.delete': () => fail('unavailable', 'database busy'),
    });
    const root = await mount(<Timeline {...props} />);
    await click(root.querySelector('.action-boost') as HTMLButtonElement);
    expect(root.querySelector('.action-boost')!.getAttribute('aria-pressed')).toBe('true');
    expect(root.querySelector('.action-boost')!.textContent).toBe('Boost');
    await click(root.querySelector('.action-boost') as HTMLButtonElement);
    expect(server.of('reblogs.delete')).toEqual([{ post_id: p.id }]);
    expect(root.querySelector('.action-boost')!.getAttribute('aria-pressed')).toBe('true');
    expect(root.querySelector('[role=alert]')).not.toBeNull();
  });

  it('does not offer a boost of a followers-only post; likes an uncached post by uri', async () => {
    const priv = remotePost({ visibility: 'followers' });
    const uncached = remotePost({ id: '' });
    const server = fakeServer({ 'timeline.home': onePage([item(priv), item(uncached, { id: 'x2' })]), 'favourites.create': () => null });
    const root = await mount(<Timeline {...props} />);
    const boosts = root.querySelectorAll<HTMLButtonElement>('.action-boost');
    expect(boosts[0]!.disabled).toBe(true);
    expect(boosts[1]!.disabled).toBe(false);
    await click(root.querySelectorAll<HTMLButtonElement>('.action-like')[1]!);
    expect(server.of('favourites.create')).toEqual([{ uri: uncached.uri }]);
  });

  it('hides a content warning and sensitive media until asked', async () => {
    const p = remotePost({
      summary: '<p>spoiler <b>ahead</b></p>',
      sensitive: true,
      attachments: [{ type: 'Image', media_type: 'image/png', url: 'https://remote.example/m.png', name: 'a cat' }, { type: 'Image', url: 'javascript:alert(1)' }],
    });
    fakeServer({ 'timeline.home': onePage([item(p)]) });
    const root = await mount(<Timeline {...props} />);
    expect(root.querySelector('.cw-text b')!.textContent).toBe('ahead'); // sanitized HTML from the server
    expect(root.querySelector('.post-content')).toBeNull();
    await click(button(root, 'Show the post'));
    expect(root.querySelector('.post-content')).not.toBeNull();
    expect(root.querySelector('.media img')).toBeNull();
    await click(button(root, 'Sensitive media (1) — show'));
    const imgs = root.querySelectorAll('.media img');
    expect(imgs).toHaveLength(1); // the javascript: URL is dropped
    expect(imgs[0]!.getAttribute('alt')).toBe('a cat');
    await click(button(root, 'Hide the post'));
    expect(root.querySelector('.post-content')).toBeNull();
  });

  it('shows the owner\'s own content warning as text', async () => {
    const mine = localPost({ summary: '<i>not html</i>' });
    fakeServer({ 'timeline.home': onePage([item(mine)]), 'personas.get': () => persona });
    const root = await mount(<Timeline {...props} />);
    expect(root.querySelector('.cw-text')!.textContent).toBe('<i>not html</i>');
    expect(root.querySelector('.cw-text i')).toBeNull();
    expect(root.querySelector('.post-author .actor-name')!.textContent).toBe('Alice');
    expect(root.querySelector('.post-time')!.getAttribute('href')).toBe('/my/post/' + mine.id);
  });

  it('embeds the quoted post', async () => {
    const quoted = remotePost({ content: '<p>the original</p>', actor: actor({ display_name: 'Carol', acct: 'carol@c.example' }) });
    const p = remotePost({ quote: quoted });
    fakeServer({ 'timeline.home': onePage([item(p)]) });
    const root = await mount(<Timeline {...props} />);
    const q = root.querySelector('.quote article.post-embedded')!;
    expect(q.querySelector('.post-content')!.textContent).toBe('the original');
    expect(q.querySelector('.actor-name')!.textContent).toBe('Carol');
    expect(q.querySelector('.post-actions')).toBeNull();
  });

  it('replies inline with posts.create in_reply_to', async () => {
    const p = remotePost();
    const server = fakeServer({
      'timeline.home': onePage([item(p)]),
      'posts.create': (x: { content: string }) => localPost({ content: `<p>${x.content}</p>` }),
    });
    const root = await mount(<Timeline {...props} />);
    await click(button(root, 'Reply'));
    const ta = root.querySelector('.reply-box textarea') as HTMLTextAreaElement;
    expect(ta.value).toBe('@bob@remote.example ');
    expect(document.activeElement).toBe(ta);
    await type(ta, '@bob@remote.example thanks!');
    await act(() => (root.querySelector('.reply-box') as HTMLFormElement).requestSubmit());
    await settle();
    expect(server.of('posts.create')).toEqual([{ content: '@bob@remote.example thanks!', in_reply_to: p.uri, visibility: 'public' }]);
    expect(root.querySelector('.reply-box')).toBeNull();
    expect(root.querySelector('.reply-sent')!.textContent).toContain('Reply posted.');
  });

  it('disables sending a reply over the limit', async () => {
    fakeServer({ 'timeline.home': onePage([item(remotePost())]) });
    const root = await mount(<Timeline {...props} />);
    await click(button(root, 'Reply'));
    await type(root.querySelector('.reply-box textarea') as HTMLTextAreaElement, 'あ'.repeat(3001));
    expect(button(root, 'Post the reply')!.disabled).toBe(true);
    expect(root.querySelector('.reply-box .counter.over')!.textContent).toBe('3001 / 3000');
  });

  it('shows errors with retry, the empty state, and calls queue.tick', async () => {
    let n = 0;
    const server = fakeServer({ 'timeline.home': () => (n++ === 0 ? fail('internal') : { items: [], next_cursor: null }) });
    const root = await mount(<Timeline {...props} />);
    expect(root.querySelector('[role=alert]')!.textContent).toContain('server had a problem');
    await click(button(root, 'Retry'));
    expect(root.textContent).toContain('Nothing in your timeline yet.');
    expect(server.of('queue.tick').length).toBeGreaterThan(0);
  });

  it('refresh reloads from the first page', async () => {
    const server = fakeServer({ 'timeline.home': onePage([item(remotePost())]) });
    const root = await mount(<Timeline {...props} />);
    expect(server.of('timeline.home')).toHaveLength(1);
    await click(button(root, 'Refresh'));
    expect(server.of('timeline.home')).toHaveLength(2);
    expect(server.of('timeline.home')[1]).toEqual({});
  });
});

describe('new posts', () => {
  afterEach(() => vi.useRealTimers());

  it('polls for a newer top post, offers it, and reloads on request', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const first = item(remotePost({ content: '<p>first</p>' }));
    let items = [first];
    const server = fakeServer({ 'timeline.home': (p: { limit?: number }) => ({ items: items.slice(0, p.limit ?? 20), next_cursor: null }) });
    const root = await mount(<Timeline {...props} />);
    await act(() => {
      vi.advanceTimersByTime(NEW_POSTS_POLL_MS);
    });
    await settle();
    expect(server.of('timeline.home').filter((p) => p.limit === 1).length).toBeGreaterThan(0);
    expect(button(root, 'New posts — show them')).toBeUndefined();
    items = [item(remotePost({ content: '<p>second</p>' })), first];
    await act(() => {
      vi.advanceTimersByTime(NEW_POSTS_POLL_MS);
    });
    await settle();
    await click(button(root, 'New posts — show them'));
    expect(root.querySelector('.post-content')!.textContent).toBe('second');
    expect(button(root, 'New posts — show them')).toBeUndefined();
  });
});

describe('hasNewer', () => {
  it('tells new posts from the same top', () => {
    const a = item(remotePost());
    expect(hasNewer(undefined, a)).toBe(false);
    expect(hasNewer(a.id, a)).toBe(false);
    expect(hasNewer('older', a)).toBe(true);
    expect(hasNewer(null, a)).toBe(true);
    expect(hasNewer(a.id, undefined)).toBe(false);
  });
});
