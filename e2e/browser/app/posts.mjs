// Scenarios of writing: a note and an article seen on the public site, a
// scheduled post that appears only at its time, a draft, the length
// limit, a failing server while sending, and 1,000 posts in the timeline.
import { assert, eventually, localInput } from './harness.mjs';
import { go, heading, open, ownerRPC, publicText } from './app-ui.mjs';

// compose fills the editor: kind, title, text, when; it returns the post
// the server stored, read back through the "Edit it" link of the done box.
async function compose(s, { kind = 'note', title, text, when, at }) {
  const page = s.page;
  await go(s, 'Compose');
  await page.getByRole('group', { name: 'Kind' }).getByLabel(kind === 'article' ? 'Article' : 'Note').check();
  if (title) await page.getByLabel('Title', { exact: true }).fill(title);
  await page.getByLabel(kind === 'article' ? 'Text (Markdown)' : 'Text', { exact: true }).fill(text);
  const whenGroup = page.getByRole('group', { name: 'When' });
  if (when === 'schedule') {
    await whenGroup.getByLabel('Schedule').check();
    await page.getByLabel('Publish at').fill(at);
  } else if (when === 'draft') {
    await whenGroup.getByLabel(/^Keep as draft/).check();
  }
  return page;
}

async function sent(s, doneText) {
  const done = s.page.getByRole('status').filter({ hasText: doneText });
  await done.waitFor({ timeout: 15000 });
  const href = await done.getByRole('link', { name: 'Edit it' }).getAttribute('href');
  const id = decodeURIComponent(href.split('/').pop());
  return ownerRPC(s, 'posts.get', { id });
}

// A note and a Markdown article with its live preview, each then read on
// its public page.
export async function noteAndArticle(s) {
  const page = s.page;
  const note = 'A note from the browser test, #murlog ' + Date.now();
  await compose(s, { text: note });
  await page.getByRole('region', { name: /Preview/ }).getByText(note.slice(0, 30)).waitFor();
  await s.h.screen('compose');
  await page.getByRole('button', { name: 'Publish' }).click();
  const p1 = await sent(s, 'Published.');
  assert(new URL(p1.url).pathname === `/@${s.spec.username}/${p1.id}`, `the note's public URL is ${p1.url}`);
  const view = await page.getByRole('link', { name: 'View it on the site' }).getAttribute('href');
  assert(view === p1.url, `"View it on the site" links ${view}; want ${p1.url}`);
  let pub = await publicText(s, p1.url);
  assert(pub.status === 200 && pub.text.includes(note), `the public page of the note: ${pub.status}`);

  const title = 'An article written in /my/';
  const md = '## A heading\n\nSome **bold** text and a [link](https://example.com/).\n\n- one\n- two\n';
  await compose(s, { kind: 'article', title, text: md });
  const preview = page.getByRole('region', { name: /Preview/ });
  await preview.locator('h2', { hasText: 'A heading' }).first().waitFor();
  await preview.locator('strong', { hasText: 'bold' }).waitFor();
  await s.h.shot('compose-article');
  await page.getByRole('button', { name: 'Publish' }).click();
  const p2 = await sent(s, 'Published.');
  pub = await publicText(s, p2.url);
  assert(pub.status === 200 && pub.text.includes(title) && pub.text.includes('A heading'), `the public page of the article: ${pub.status}`);
  s.published = [p1, p2];

  // The timeline shows the article as its title and excerpt with a link
  // to read it, not its whole text and headings; the post's own page
  // shows it whole, with no heading larger than its title.
  await go(s, 'Home');
  const card = page.getByRole('article').filter({ has: page.getByRole('link', { name: title, exact: true }) });
  await card.waitFor({ timeout: 15000 });
  assert((await card.locator('h1, h2, h3, h4, h5, h6').count()) === 0, 'the timeline shows the article\'s headings');
  const excerpt = await card.innerText();
  assert(excerpt.includes('A heading Some bold text'), `the timeline's article says "${excerpt}"; want its excerpt`);
  // Its accessible name names the article ("Read more: <title>"; the
  // visually hidden part may come with a space before its colon).
  await card.getByRole('link', { name: /^Read more\s*:\s*An article written in \/my\/$/ }).click();
  await heading(s, 'Post');
  const sizes = await page.locator('main article').first().evaluate((a, title) => {
    const px = (e) => parseFloat(getComputedStyle(e).fontSize);
    const t = [...a.querySelectorAll('*')].find((e) => e.children.length === 0 && e.textContent.trim() === title);
    return { title: t ? px(t) : 0, headings: [...a.querySelectorAll('h1, h2, h3, h4, h5, h6')].map(px) };
  }, title);
  assert(sizes.title > 0 && sizes.headings.length > 0 && sizes.headings.every((h) => h <= sizes.title),
    `the post's title is ${sizes.title} px and its headings ${sizes.headings.join(', ')} px; want none larger than the title`);
}

// How far ahead a post is scheduled: long enough for the checks before
// its time on a quiet machine; when they take longer (a loaded one), what
// they saw may be from after the time, so the post is scheduled again
// further ahead rather than judged.
const SCHEDULE_LEADS = [8000, 20000];

// A post scheduled a few seconds ahead: its page is 404 and the site page
// does not list it until then (scheduledAppears checks it after its time,
// while other scenarios run in between).
export async function scheduled(s) {
  for (const lead of SCHEDULE_LEADS) {
    const text = 'Scheduled from the browser ' + Date.now();
    const when = new Date(Date.now() + lead);
    when.setMilliseconds(0);
    await compose(s, { text, when: 'schedule', at: localInput(when) });
    await s.page.getByRole('button', { name: 'Schedule' }).click();
    const post = await sent(s, 'Scheduled for');
    assert(post.state === 'scheduled', `the post is ${post.state}`);
    assert(Math.abs(Date.parse(post.published_at) - when.getTime()) < 1000, `scheduled at ${post.published_at}; want ${when.toISOString()}`);
    const pub = await publicText(s, post.url);
    const listed = (await publicText(s, '/')).text.includes(text);
    if (Date.now() >= when.getTime()) {
      s.h.note(`the checks before the time took more than ${lead} ms: scheduling another post further ahead`);
      continue;
    }
    assert(pub.status === 404, `before its time the post's page answers ${pub.status}`);
    assert(!listed, 'before its time the site page lists the post');
    s.scheduled = { post, text, when };
    return;
  }
  throw new Error('the checks before the time took too long to mean anything');
}

// After its time, the scheduled post's page and the site page show it;
// not before.
export async function scheduledAppears(s) {
  assert(s.scheduled, 'no post was scheduled (see "schedule a post")');
  const { post, text, when } = s.scheduled;
  // Its page answers from its time on (rendered when first asked for);
  // the site page, a stored artifact, lists it once the post's publish
  // job has run at that time and had it rendered again — a moment later.
  let early = false;
  await eventually('the scheduled post on the public site', async () => {
    const pub = await publicText(s, post.url);
    early ||= pub.status === 200 && Date.now() < when.getTime();
    return pub.status === 200 && pub.text.includes(text);
  }, { timeout: Math.max(0, when.getTime() - Date.now()) + 30000, interval: 250 });
  assert(!early, 'the post was public before its time');
  await eventually('the site page listing the scheduled post', async () => (await publicText(s, '/')).text.includes(text),
    { timeout: 15000, interval: 250 });
}

// A draft: saved, listed as a draft in Posts, not on the public site.
export async function draft(s) {
  const text = 'A draft kept for later ' + Date.now();
  await compose(s, { text, when: 'draft' });
  await s.page.getByRole('button', { name: 'Save draft' }).click();
  const post = await sent(s, 'Saved as a draft.');
  assert(post.state === 'draft', `the draft is ${post.state}`);
  await go(s, 'Posts');
  const item = s.page.locator('main li').filter({ hasText: text });
  await item.waitFor();
  assert(/Draft/.test(await item.innerText()), `the draft's row says: ${await item.innerText()}`);
  await s.h.screen('posts');
  const pub = await publicText(s, post.url);
  assert(pub.status === 404, `a draft's public page answers ${pub.status}`);
}

// A note one character over the server's limit: the counter says so and
// the send button is disabled; back within the limit it is enabled.
export async function overLimit(s) {
  const info = await ownerRPC(s, 'site.info');
  const limit = info.limits.note_chars;
  await compose(s, { text: 'x'.repeat(limit + 1) });
  const page = s.page;
  const counter = page.locator('#compose-counter');
  await eventually('the counter', async () => (await counter.innerText()).replace(/[^\d/]/g, '') === `${limit + 1}/${limit}`);
  assert(/over/.test(await counter.getAttribute('class')), 'the counter is not marked as over');
  await page.getByText('1 characters over the limit.').first().waitFor();
  const send = page.getByRole('button', { name: 'Publish' });
  assert(await send.isDisabled(), 'Publish is enabled with a text over the limit');
  await s.h.shot('compose-over-limit');
  await page.getByLabel('Text', { exact: true }).fill('x'.repeat(limit));
  await eventually('Publish enabled at the limit', () => send.isEnabled());
  await page.getByLabel('Text', { exact: true }).fill('');
}

// The server fails while a post is sent (HTTP 500, then no answer): the
// app says so with nothing lost, and sending again works.
export async function serverError(s) {
  const page = s.page;
  const text = 'Sent through a failing server ' + Date.now();
  await compose(s, { text });
  let mode = 'internal';
  const fail = async (route) => {
    const body = route.request().postDataJSON();
    const calls = Array.isArray(body) ? body : [body];
    if (!calls.some((c) => c.method === 'posts.create')) return route.continue();
    if (mode === 'network') return route.abort('failed');
    return route.fulfill({ status: 500, contentType: 'application/json',
      body: JSON.stringify({ jsonrpc: '2.0', id: calls[0].id, error: { code: -32603, message: 'internal error', data: { code: 'internal' } } }) });
  };
  await page.route('**/api/mur/v1/rpc', fail);
  try {
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('alert').filter({ hasText: 'The server had a problem' }).waitFor();
    assert((await page.getByLabel('Text', { exact: true }).inputValue()) === text, 'the text was lost after a server error');
    await s.h.shot('compose-server-error');
    mode = 'network';
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();
    assert((await page.getByLabel('Text', { exact: true }).inputValue()) === text, 'the text was lost after a network failure');
  } finally {
    await page.unroute('**/api/mur/v1/rpc', fail);
  }
  await page.getByRole('button', { name: 'Publish' }).click();
  const post = await sent(s, 'Published.');
  assert(post.source === text || post.content.includes(text.split(' ').pop()), 'the post sent after the failures is not the text');
  const posts = (await ownerRPC(s, 'posts.list', { limit: 10 })).items.filter((p) => (p.source || '') === text);
  assert(posts.length === 1, `the failing sends stored ${posts.length} posts`);

  // A failing read: the timeline cannot load, says so with a retry that works.
  const abort = (route) => route.abort('failed');
  await page.route('**/api/mur/v1/rpc', abort);
  await go(s, 'Home').catch(() => undefined);
  const alert = page.locator('main').getByRole('alert');
  await alert.first().waitFor();
  await s.h.shot('timeline-network-error');
  await page.unroute('**/api/mur/v1/rpc', abort);
  await alert.getByRole('button', { name: 'Retry' }).first().click();
  await page.locator('main').getByText(text).first().waitFor();
}

// 1,000 posts (written in batches of 100 through the API): the first
// paint of the timeline from a warm cache is recorded, and scrolling down
// to the oldest keeps at most ~200 posts mounted.
export async function thousand(s) {
  const started = Date.now();
  for (let b = 0; b < 10; b++) {
    const calls = [];
    for (let i = 1; i <= 100; i++) calls.push(['posts.create', { content: `Bulk post ${b * 100 + i} of 1000` }]);
    await ownerRPC(s, calls);
  }
  s.h.record('create 1,000 posts (10 batches)', `${Date.now() - started} ms`);

  // Warm: the service worker holds the shell, the HTTP cache the rest.
  await open(s, '/');
  await s.page.locator('ul[aria-label="Home timeline"] > li').first().waitFor();
  await s.page.evaluate(() => navigator.serviceWorker?.ready);
  const paint = [];
  for (let i = 0; i < 3; i++) {
    await s.page.goto(s.a + '/my/', { waitUntil: 'commit' });
    await s.page.locator('ul[aria-label="Home timeline"] > li').first().waitFor();
    paint.push(await s.page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      return { firstPost: Math.round(window.__murlogFirstItem ?? performance.now()), fromSW: nav ? nav.workerStart > 0 : null };
    }));
  }
  s.h.record('timeline first post, warm cache (ms; 3 loads)', paint.map((p) => p.firstPost).join(', ') +
    (paint.every((p) => p.fromSW) ? ' (served through the service worker)' : ''));

  // Scroll to the oldest post. Each step scrolls to the bottom and waits,
  // in the page, for the next page of posts (or the end) to be rendered,
  // then says what is mounted: no round trip to the test per poll.
  const page = s.page;
  const list = page.getByRole('list', { name: 'Home timeline' });
  let maxMounted = 0;
  let loads = 0;
  const seen = new Set();
  const t0 = Date.now();
  let state = await page.evaluate(timelineStep, null);
  for (;;) {
    maxMounted = Math.max(maxMounted, state.mounted);
    for (const n of state.nums) seen.add(n);
    if (state.end || Date.now() - t0 > 60000) break;
    loads++;
    state = await page.evaluate(timelineStep, state.nums[state.nums.length - 1] ?? -1);
    if (state.timedOut) throw new Error(`timed out waiting for the next page of the timeline after post ${[...seen].sort((x, y) => x - y)[0]}`);
  }
  await list.first().waitFor();
  s.h.record('timeline scroll through 1,000 posts', { ms: Date.now() - t0, scrolls: loads, maxMounted, seen: seen.size });
  assert(seen.has(1) && seen.has(1000) && seen.size === 1000, `scrolling showed ${seen.size} of the 1,000 posts (oldest seen: ${Math.min(...seen)})`);
  assert(maxMounted <= 220, `${maxMounted} posts were mounted at once; want at most ~200`);
  await heading(s);
}

// timelineStep runs in the page. With the number of the last post seen
// (before), it scrolls to the bottom and waits for the next page of
// posts, or the end, to be rendered (for at most 10 s); with null it only
// reads. It returns how many posts the home timeline has mounted, their
// numbers in order, and whether it says it reached the end.
async function timelineStep(before) {
  const read = () => {
    const items = [...document.querySelectorAll('ul[aria-label="Home timeline"] > li')];
    const nums = items.map((li) => (li.textContent.match(/Bulk post (\d+) of 1000/) || [])[1]).filter(Boolean).map(Number);
    return { mounted: items.length, nums, end: [...document.querySelectorAll('main p')].some((p) => p.textContent === 'That is all.') };
  };
  if (before === null) return read();
  window.scrollTo(0, document.documentElement.scrollHeight);
  const deadline = performance.now() + 10000;
  for (;;) {
    const st = read();
    if (st.end || (st.nums.length && st.nums[st.nums.length - 1] !== before)) return st;
    if (performance.now() > deadline) return { ...st, timedOut: true };
    await new Promise((r) => setTimeout(r, 16));
  }
}
