import { afterEach, describe, expect, it, vi } from 'vitest';
import { SiteContext, type SiteInfo } from '../hooks';
import { navigate, currentLocation } from '../router';
import { onUnauthorized } from '../rpc';
import { byLabel, click, Fail, fakeServer, mount, settle, submit, screenTest, type } from '../testing';
import Compose, { PREVIEW_DELAY_MS } from './Compose';
import { DRAFT_KEY, scheduleToISO } from './compose/logic';

const info = (note_chars = 3000) => ({
  version: 't', domain: 'blog.example', owner: true, themes: [],
  limits: { note_chars, article_chars: 100000, title_chars: 200, summary_chars: 1000 },
}) as unknown as SiteInfo;

function App({ id, query = '', site = info() }: { id?: string; query?: string; site?: SiteInfo }) {
  return (
    <SiteContext.Provider value={{ info: site, reload: async () => undefined, refreshUnread: () => undefined }}>
      <Compose params={id ? { id } : {}} query={new URLSearchParams(query)} />
    </SiteContext.Provider>
  );
}

const waitPreview = async () => {
  await new Promise((r) => setTimeout(r, PREVIEW_DELAY_MS + 50));
  await settle();
};

const t = screenTest();
afterEach(() => onUnauthorized(null));

const textarea = () => t.m!.root.querySelector('textarea')!;
const sendButton = () => t.m!.root.querySelector('button[type=submit]') as HTMLButtonElement;

describe('Compose', () => {
  it('shows the server preview and its counter; over the limit the counter is red and send disabled', async () => {
    const server = fakeServer({
      'posts.preview': (p) => ({ html: '<p>' + p.content + '</p>', chars: p.content === 'long' ? 3001 : 2, limit: 3000 }),
    });
    t.m = await mount(<App />);
    await type(textarea(), 'ok');
    await waitPreview();
    expect(server.paramsOf('posts.preview')).toEqual([{ kind: 'note', content: 'ok' }]);
    expect(t.m.root.querySelector('.preview .safe-html')!.innerHTML).toBe('<p>ok</p>');
    expect(t.m.root.querySelector('#compose-counter')!.textContent).toBe('2 / 3,000');
    expect(sendButton().disabled).toBe(false);

    await type(textarea(), 'long');
    await waitPreview();
    const c = t.m.root.querySelector('#compose-counter')!;
    expect(c.textContent).toBe('3,001 / 3,000');
    expect(c.classList.contains('over')).toBe(true);
    expect(sendButton().disabled).toBe(true);
    expect(t.m.root.textContent).toContain('1 characters over the limit.');
    expect(textarea().getAttribute('aria-describedby')).toContain('compose-counter');
  });

  it('debounces the preview: one call after typing stops', async () => {
    const server = fakeServer({ 'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 3000 }) });
    t.m = await mount(<App />);
    for (const s of ['a', 'ab', 'abc']) await type(textarea(), s);
    await waitPreview();
    expect(server.paramsOf('posts.preview').map((p) => p.content)).toEqual(['abc']);
  });

  it("uses site.info's limit before the first preview answers", async () => {
    fakeServer({ 'posts.preview': () => new Promise(() => undefined) });
    t.m = await mount(<App site={info(10)} />);
    await type(textarea(), '12345678901');
    expect(t.m.root.querySelector('#compose-counter')!.textContent).toBe('11 / 10');
    expect(sendButton().disabled).toBe(true);
  });

  it('restores the kept draft and can discard it', async () => {
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ v: 1, id: null, kind: 'article', title: 'Kept', content: '# body', summary: '' }));
    fakeServer({ 'posts.preview': () => ({ html: '<h1>body</h1>', chars: 6, limit: 100000 }) });
    t.m = await mount(<App />);
    expect(textarea().value).toBe('# body');
    expect(byLabel(t.m.root, 'Title')!.value).toBe('Kept');
    expect(t.m.root.textContent).toContain('Your unsent text was restored.');
    await click([...t.m.root.querySelectorAll('button')].find((b) => b.textContent === 'Discard it'));
    expect(textarea().value).toBe('');
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
  });

  it('keeps the text when the session has expired on send', async () => {
    const hook = vi.fn();
    onUnauthorized(hook);
    fakeServer({
      'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 3000 }),
      'posts.create': () => new Fail('unauthorized', 'session expired', {}, -32000),
    });
    t.m = await mount(<App />);
    await type(textarea(), 'not lost');
    await submit(t.m.root.querySelector('form'));
    expect(hook).toHaveBeenCalled();
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toMatchObject({ id: null, kind: 'note', content: 'not lost' });

    // After login the owner comes back to Compose: the text is there.
    t.m.unmount();
    t.m = await mount(<App />);
    expect(textarea().value).toBe('not lost');
  });

  it('schedules: published_at is the chosen local time in UTC; the draft is cleared after', async () => {
    const server = fakeServer({
      'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 3000 }),
      'posts.create': (p) => ({ id: 'n1', kind: 'note', content: '', summary: '', sensitive: false, visibility: p.visibility, language: '', published_at: p.published_at, state: 'scheduled', url: 'https://blog.example/@a/n1', in_reply_to: '' }),
    });
    t.m = await mount(<App />);
    await type(textarea(), 'later');
    await click(t.m.root.querySelector('input[name=when][value=schedule]'));
    const at = byLabel(t.m.root, 'Publish at')!;
    expect(t.m.root.textContent).toMatch(/Time zone: .*UTC[+-]\d\d:\d\d/);
    await type(at, '2099-05-01T09:30');
    expect(sendButton().textContent).toBe('Schedule');
    await submit(t.m.root.querySelector('form'));
    const sent = server.paramsOf('posts.create')[0];
    expect(sent.published_at).toBe(scheduleToISO('2099-05-01T09:30'));
    expect(sent.published_at).toMatch(/Z$/);
    expect(t.m.root.textContent).toContain('Scheduled for');
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
    expect(textarea().value).toBe('');
  });

  it('refuses a schedule in the past before sending', async () => {
    const server = fakeServer({ 'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 3000 }) });
    t.m = await mount(<App />);
    await type(textarea(), 'x');
    await click(t.m.root.querySelector('input[name=when][value=schedule]'));
    await type(byLabel(t.m.root, 'Publish at'), '2001-01-01T00:00');
    expect(t.m.root.textContent).toContain('Pick a time in the future.');
    expect(sendButton().disabled).toBe(true);
    expect(server.paramsOf('posts.create')).toEqual([]);
  });

  it('says an article needs a title when sent without one, and shows server field errors next to the field', async () => {
    const server = fakeServer({
      'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 100000 }),
      'posts.create': () => new Fail('invalid', 'language: not a BCP 47 tag', { field: 'language' }),
    });
    t.m = await mount(<App />);
    await click(t.m.root.querySelector('input[name=kind][value=article]'));
    await type(textarea(), 'body');
    await submit(t.m.root.querySelector('form'));
    expect(t.m.root.textContent).toContain('An article needs a title.');
    expect(server.paramsOf('posts.create')).toEqual([]);
    await type(byLabel(t.m.root, 'Title'), 'T');
    await type(byLabel(t.m.root, 'Language'), 'xx_!!');
    await submit(t.m.root.querySelector('form'));
    const lang = byLabel(t.m.root, 'Language')!;
    expect(lang.getAttribute('aria-invalid')).toBe('true');
    const errId = lang.getAttribute('aria-describedby')!.split(' ').find((x) => x.endsWith('-error'))!;
    expect(t.m.root.querySelector('#' + CSS.escape(errId))!.textContent).toContain('language: not a BCP 47 tag');
  });

  it('edits a post: loads its source, saves with posts.update and goes back to Posts', async () => {
    navigate('/compose/p1', { replace: true });
    const server = fakeServer({
      'posts.get': () => ({ id: 'p1', kind: 'note', content: '<p>old</p>', source: 'old', summary: '', sensitive: false, visibility: 'unlisted', language: 'en', published_at: null, state: 'draft', url: 'u', in_reply_to: '' }),
      'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 3000 }),
      'posts.update': (p) => ({ id: p.id }),
    });
    t.m = await mount(<App id="p1" />);
    expect(textarea().value).toBe('old');
    expect((t.m.root.querySelector('input[name=when][value=draft]') as HTMLInputElement).checked).toBe(true);
    expect((t.m.root.querySelector('select') as HTMLSelectElement).value).toBe('unlisted');
    await type(textarea(), 'new');
    expect(JSON.parse(localStorage.getItem(DRAFT_KEY)!)).toMatchObject({ id: 'p1', content: 'new' });
    await click(t.m.root.querySelector('input[name=when][value=now]'));
    await submit(t.m.root.querySelector('form'));
    const sent = server.paramsOf('posts.update')[0];
    expect(sent).toMatchObject({ id: 'p1', content: 'new', visibility: 'unlisted', language: 'en' });
    expect(typeof sent.published_at).toBe('string');
    expect(currentLocation().path).toBe('/posts');
    expect(localStorage.getItem(DRAFT_KEY)).toBeNull();
  });

  it('opening a post to edit does not forget the draft of a new post', async () => {
    const kept = JSON.stringify({ v: 1, id: null, kind: 'note', title: '', content: 'unsent', summary: '' });
    localStorage.setItem(DRAFT_KEY, kept);
    fakeServer({
      'posts.get': () => ({ id: 'p1', kind: 'note', content: '', source: 'saved', summary: '', sensitive: false, visibility: 'public', language: '', published_at: null, state: 'draft', url: 'u', in_reply_to: '' }),
      'posts.preview': () => ({ html: '', chars: 5, limit: 3000 }),
    });
    t.m = await mount(<App id="p1" />);
    expect(textarea().value).toBe('saved');
    expect(t.m.root.textContent).not.toContain('Your unsent text was restored.');
    expect(localStorage.getItem(DRAFT_KEY)).toBe(kept);
  });

  it('shows a load error with retry when the post cannot be read', async () => {
    let fail = true;
    fakeServer({
      'posts.get': () => (fail ? new Fail('unavailable', 'database busy', {}, -32005) : { id: 'p1', kind: 'note', content: '', source: 'back', summary: '', sensitive: false, visibility: 'public', language: '', published_at: '2020-01-01T00:00:00Z', state: 'published', url: 'u', in_reply_to: '' }),
      'posts.preview': () => ({ html: '', chars: 4, limit: 3000 }),
    });
    t.m = await mount(<App id="p1" />);
    expect(t.m.root.querySelector('[role=alert]')!.textContent).toContain('busy or not ready');
    fail = false;
    await click(t.m.root.querySelector('[role=alert] button'));
    expect(textarea().value).toBe('back');
    expect(t.m.root.textContent).toContain('Published (keep its date)');
  });
});

describe('Compose: an article\'s address and page', () => {
  const slugInput = () => byLabel(t.m!.root, 'Address (slug)')!;
  const pageBox = () => byLabel(t.m!.root, 'A page of the site (About, Contact …)')!;

  it('shows the address the title gives as it is typed, and sends only one the owner wrote', async () => {
    const server = fakeServer({
      'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 100000 }),
      'posts.create': (p) => ({ id: 'n1', kind: 'article', title: p.title, url: 'u', published_at: '2030-01-01T00:00:00Z' }),
    });
    t.m = await mount(<App />);
    await click(t.m.root.querySelector('input[name=kind][value=article]'));
    await type(byLabel(t.m.root, 'Title'), 'Hello, World');
    expect(slugInput().value).toBe('hello-world');
    await type(byLabel(t.m.root, 'Title'), 'はじめての ActivityPub');
    expect(slugInput().value).toBe('はじめての-activitypub');
    await type(textarea(), 'body');
    await submit(t.m.root.querySelector('form'));
    const sent = server.paramsOf('posts.create')[0];
    expect(sent).toMatchObject({ kind: 'article', title: 'はじめての ActivityPub' });
    expect('slug' in sent || 'page' in sent).toBe(false);

    await click(t.m.root.querySelector('input[name=kind][value=article]'));
    await type(byLabel(t.m.root, 'Title'), 'About me');
    await type(slugInput(), 'about');
    await type(byLabel(t.m.root, 'Title'), 'About me and this site');
    expect(slugInput().value).toBe('about');
    await click(pageBox());
    await type(textarea(), 'who I am');
    await submit(t.m.root.querySelector('form'));
    expect(server.paramsOf('posts.create')[1]).toMatchObject({ title: 'About me and this site', slug: 'about', page: true });
  });

  it('refuses a slug the server would refuse before sending, and a page only followers may see', async () => {
    const server = fakeServer({ 'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 100000 }) });
    t.m = await mount(<App />);
    await click(t.m.root.querySelector('input[name=kind][value=article]'));
    await type(byLabel(t.m.root, 'Title'), 'T');
    await type(textarea(), 'body');
    await type(slugInput(), 'Not A Slug');
    expect(slugInput().getAttribute('aria-invalid')).toBe('true');
    expect(t.m.root.textContent).toContain('Use lower-case letters, digits and single hyphens, such as not-a-slug.');
    expect(sendButton().disabled).toBe(true);
    await type(slugInput(), 'search');
    expect(t.m.root.textContent).toContain('The site itself uses this address');
    await type(slugInput(), 'fine');
    expect(sendButton().disabled).toBe(false);
    await click(pageBox());
    const select = t.m.root.querySelector('select') as HTMLSelectElement;
    select.value = 'followers';
    await type(select, 'followers');
    expect(t.m.root.textContent).toContain('A page is part of the public site');
    expect(sendButton().disabled).toBe(true);
    expect(server.paramsOf('posts.create')).toEqual([]);
  });

  it('keeps the address of an article being edited when its title changes, and shows a server refusal', async () => {
    navigate('/compose/a1', { replace: true });
    const server = fakeServer({
      'posts.get': () => ({ id: 'a1', kind: 'article', title: 'Old title', slug: 'old-title', page: true, content: '', source: 'text', summary: '',
        sensitive: false, visibility: 'public', language: '', published_at: '2020-01-01T00:00:00Z', state: 'published', url: 'u', in_reply_to: '' }),
      'posts.preview': (p) => ({ html: '', chars: p.content.length, limit: 100000 }),
      'posts.update': () => new Fail('conflict', 'another post of this persona has the slug "taken"', { field: 'slug' }, -32002),
    });
    t.m = await mount(<App id="a1" />);
    expect(slugInput().value).toBe('old-title');
    expect(pageBox().checked).toBe(true);
    await type(byLabel(t.m.root, 'Title'), 'New title');
    expect(slugInput().value).toBe('old-title');
    await type(slugInput(), 'taken');
    await submit(t.m.root.querySelector('form'));
    expect(server.paramsOf('posts.update')[0]).toMatchObject({ id: 'a1', title: 'New title', slug: 'taken', page: true });
    expect(slugInput().getAttribute('aria-invalid')).toBe('true');
    expect(t.m.root.textContent).toContain('another post of this persona has the slug');
  });
});
