import { describe, expect, it } from 'vitest';
import { currentLocation, navigate } from '../router';
import { button, click, Fail, fakeServer, mount, screenTest } from '../testing';
import type { OwnPost } from './Compose';
import Posts, { canPin, loadFiltered, postState } from './Posts';


const t = screenTest();

const post = (id: string, over: Partial<OwnPost> = {}): OwnPost => ({
  id, kind: 'note', content: '<p>x</p>', source: 'post ' + id, summary: '', sensitive: false, visibility: 'public',
  language: '', published_at: '2020-01-01T00:00:00Z', state: 'published', url: 'https://blog.example/@a/' + id, in_reply_to: '', ...over,
});

describe('posts helpers', () => {
  it('reads the state from the server, or from published_at', () => {
    expect(postState(post('a', { state: 'scheduled' }))).toBe('scheduled');
    expect(postState(post('a', { state: undefined, published_at: null }))).toBe('draft');
    expect(postState(post('a', { state: undefined, published_at: '2999-01-01T00:00:00Z' }))).toBe('scheduled');
    expect(postState(post('a', { state: undefined }))).toBe('published');
  });
  it('pins only published public or unlisted posts', () => {
    expect(canPin(post('a'))).toBe(true);
    expect(canPin(post('a', { visibility: 'unlisted' }))).toBe(true);
    expect(canPin(post('a', { visibility: 'followers' }))).toBe(false);
    expect(canPin(post('a', { state: 'draft', published_at: null }))).toBe(false);
    expect(canPin(post('a', { kind: 'article', title: 'About', page: true }))).toBe(false);
  });
  it('a filtered page reads on until it has 20 matches, at most 5 pages, and continues from there', async () => {
    // 1,000 posts, every 10th a draft
    const all = Array.from({ length: 1000 }, (_, i) => post(String(i), i % 10 === 0 ? { state: 'draft', published_at: null } : {}));
    const reads: (string | null)[] = [];
    const fetchPage = async (cursor: string | null, limit: number) => {
      reads.push(cursor);
      const start = cursor === null ? 0 : Number(cursor);
      return { items: all.slice(start, start + limit), next_cursor: start + limit < all.length ? String(start + limit) : null };
    };
    const ctrl = new AbortController();
    const p1 = await loadFiltered(null, ctrl.signal, (p) => postState(p) === 'draft', fetchPage);
    expect(p1.items.map((p) => p.id)).toEqual(Array.from({ length: 20 }, (_, i) => String(i * 10)));
    expect(reads).toEqual([null, '100']);
    expect(p1.next_cursor).toBe('200');
    reads.length = 0;
    const none = await loadFiltered('200', ctrl.signal, (p) => p.state === 'scheduled', fetchPage);
    expect(none.items).toEqual([]);
    expect(reads).toHaveLength(5);
    expect(none.next_cursor).toBe('700');
  });
});

describe('Posts screen', () => {
  function server(items: OwnPost[]) {
    return fakeServer({
      'posts.list': () => ({ items, next_cursor: null }),
      'posts.delete': (p) => {
        const i = items.findIndex((x) => x.id === p.id);
        items.splice(i, 1);
        return { status: 'ok' };
      },
      'posts.pin': () => ({ status: 'ok' }),
      'posts.unpin': () => ({ status: 'ok' }),
    });
  }
  const render = (q = '') => mount(<Posts params={{}} query={new URLSearchParams(q)} />);

  it('shows each post with its state, scheduled time and edit link', async () => {
    server([
      post('d', { state: 'draft', published_at: null, source: 'a draft' }),
      post('s', { state: 'scheduled', published_at: '2099-01-01T09:00:00Z', source: 'later' }),
      post('a', { kind: 'article', title: 'An article', source: '# body' }),
    ]);
    t.m = await render();
    const rows = [...t.m.root.querySelectorAll('.own-post')];
    expect(rows).toHaveLength(3);
    expect(rows[0]!.textContent).toContain('a draft');
    expect(rows[0]!.querySelector('.tag')!.textContent).toBe('Draft');
    expect(rows[1]!.querySelector('.tag')!.textContent).toBe('Scheduled');
    expect(rows[1]!.querySelector('time')!.getAttribute('datetime')).toBe('2099-01-01T09:00:00Z');
    expect(rows[2]!.querySelector('.row-title')!.textContent).toBe('An article');
    expect(rows[0]!.querySelector('a')!.getAttribute('href')).toBe('/my/compose/d');
    // only published posts can be viewed and pinned
    expect(button(rows[0] as HTMLElement, 'Pin')).toBeUndefined();
    expect(rows[2]!.querySelector('a[href="https://blog.example/@a/a"]')).not.toBeNull();
  });

  it('filters by state through the URL', async () => {
    const s = server([post('d', { state: 'draft', published_at: null }), post('p')]);
    navigate('/posts', { replace: true });
    t.m = await render('state=draft');
    expect([...t.m.root.querySelectorAll('.own-post')]).toHaveLength(1);
    expect(t.m.root.querySelector('[aria-pressed=true]')!.textContent).toBe('Drafts');
    expect(s.paramsOf('posts.list')[0]).toEqual({ limit: 100 });
    await click(button(t.m.root, 'Scheduled'));
    expect(currentLocation().query.get('state')).toBe('scheduled');
    // without the server's `pinned`, no pinned filter that would show nothing true
    expect(button(t.m.root, 'Pinned')).toBeUndefined();
  });

  it('marks the pages of the site, offers no pin for them, and lists them alone under Pages', async () => {
    server([post('a', { kind: 'article', title: 'About me', page: true, slug: 'about-me' }), post('n')]);
    t.m = await render();
    const [page, note] = [...t.m.root.querySelectorAll('.own-post')] as HTMLElement[];
    expect(page!.querySelector('.tag.page')!.textContent).toBe('Page');
    expect(note!.querySelector('.tag.page')).toBeNull();
    expect(button(page!, 'Pin')).toBeUndefined();
    expect(button(note!, 'Pin')).toBeDefined();
    await click(button(t.m.root, 'Pages'));
    expect(currentLocation().query.get('state')).toBe('page');
    t.m.unmount();
    t.m = await render('state=page');
    const rows = [...t.m.root.querySelectorAll('.own-post')];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.querySelector('.row-title')!.textContent).toBe('About me');
  });

  it('deletes after confirming and pins / unpins with the server\'s pinned state', async () => {
    const s = server([post('a', { pinned: true }), post('b', { pinned: false })]);
    t.m = await render();
    const [a, b] = [...t.m.root.querySelectorAll('.own-post')] as HTMLElement[];
    expect(a!.textContent).toContain('Pinned');
    expect(button(a!, 'Pin')).toBeUndefined();
    expect(button(b!, 'Unpin')).toBeUndefined();
    await click(button(b!, 'Pin'));
    expect(s.paramsOf('posts.pin')).toEqual([{ id: 'b' }]);
    expect(button(b!, 'Unpin')).toBeDefined();
    expect(button(t.m.root, 'Pinned')).toBeDefined();

    await click(button(a!, 'Delete'));
    expect(s.paramsOf('posts.delete')).toHaveLength(0);
    await click(button(t.m.root.querySelector('[role=alertdialog]')!, 'Delete'));
    expect(s.paramsOf('posts.delete')).toEqual([{ id: 'a' }]);
    expect(t.m.root.querySelectorAll('.own-post')).toHaveLength(1);
  });

  it('shows a failed pin next to the post, and the empty state', async () => {
    const s = server([post('a')]);
    s.handlers['posts.pin'] = () => new Fail('conflict', 'at most 5 posts can be pinned', {}, -32002);
    t.m = await render();
    await click(button(t.m.root, 'Pin'));
    expect(t.m.root.querySelector('.own-post [role=alert]')!.textContent).toContain('at most 5 posts can be pinned');
    t.m.unmount();
    server([]);
    t.m = await render();
    expect(t.m.root.textContent).toContain('No posts yet.');
  });
});
