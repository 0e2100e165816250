// Scenarios of the fediverse side: following bob on the second murlog and
// reading his posts, remote HTML and scripts that never run, a dead
// delivery retried from the queue, a follow request approved, and the
// public site's theme.
import { assert, eventually, rpc } from './harness.mjs';
import { fieldError, go, heading, open, ownerRPC, publicPage } from './app-ui.mjs';
import { HOSTILE_NAME } from './remote.mjs';

// What bob writes: his display name and posts carry markup and scripts.
// bob's own server escapes the note and sanitizes the article; A must show
// both as text or sanitized HTML.
const BOB_NAME = '<img src=x onerror=window.__pwned=1> Bob';
const BOB_NOTE = 'Hello from bob <img src=x onerror=window.__pwned=1> <script>window.__pwned=1</script>';
const BOB_ARTICLE = 'Raw HTML from bob\n\n<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>\n\n<a href="javascript:window.__pwned=1">a link</a>';

const b = (s, method, params) => rpc(s.spec.b, s.spec.b_token, method, params);

// follow types an address into the Follows screen's form and follows it.
async function follow(s, acct) {
  const page = s.page;
  await go(s, 'Follows');
  await page.getByLabel('Follow an account', { exact: true }).fill(acct);
  await page.getByRole('button', { name: 'Follow', exact: true }).click();
}

// timelineShows refreshes Home until text is in it, as the owner would
// with the Refresh button: the screen loads its list when it opens, and
// choosing Home again while on it loads nothing.
async function timelineShows(s, text) {
  await go(s, 'Home');
  const list = s.page.getByRole('list', { name: 'Home timeline' });
  const refresh = s.page.getByRole('main').getByRole('button', { name: 'Refresh', exact: true });
  await eventually(`"${text}" in the home timeline`, async () => {
    await list.getByRole('listitem').first().waitFor({ timeout: 5000 });
    if ((await list.innerText()).includes(text)) return true;
    await refresh.click();
    return false;
  }, { timeout: 30000, interval: 500 });
}

// nothingRan checks that no script of the remote content ran and that no
// dangerous markup got into the page.
async function nothingRan(s, where) {
  const r = await s.page.evaluate(() => ({
    pwned: window.__pwned,
    scripts: [...document.querySelectorAll('main script')].length,
    handlers: [...document.querySelectorAll('main *')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
    js: [...document.querySelectorAll('main a[href], main iframe, main img')].filter((e) => /^\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('src') || '')).length,
    iframes: [...document.querySelectorAll('main iframe')].length,
  }));
  assert(r.pwned === undefined, `${where}: window.__pwned is ${r.pwned}: a remote script ran`);
  assert(r.scripts === 0 && r.handlers === 0 && r.js === 0 && r.iframes === 0, `${where}: remote markup got into the page: ${JSON.stringify(r)}`);
}

// Follow bob (@bob@127.0.0.1:PORT) from the Follows screen; his new post
// shows in A's home timeline.
export async function followRemote(s) {
  const bob = await b(s, 'personas.get', {});
  await b(s, 'personas.update', { id: bob.id, display_name: BOB_NAME });
  await follow(s, s.spec.b_acct);
  await eventually('the follow of bob accepted', async () => {
    const f = await ownerRPC(s, 'follows.list', {});
    return f.items.some((x) => x.actor.acct === s.spec.b_acct.slice(1) && x.state === 'accepted');
  });
  await s.h.screen('follows');
  await b(s, 'posts.create', { content: BOB_NOTE });
  await b(s, 'posts.create', { kind: 'article', title: 'An article by bob', content: BOB_ARTICLE, federate_as: 'note' });
  await timelineShows(s, 'Hello from bob');
  await timelineShows(s, 'Raw HTML from bob');
  await s.h.screen('home');
}

// bob's name and posts, and ghost's (raw HTML from a server that does not
// sanitize), in the timeline, the post detail and the remote profile: as
// text or sanitized HTML, and nothing runs.
export async function hostileContent(s) {
  const page = s.page;
  await timelineShows(s, 'Hello from bob');
  const main = page.locator('main');
  assert((await main.innerText()).includes('<img src=x onerror=window.__pwned=1> Bob'), "bob's display name is not shown as text");
  assert((await main.innerText()).includes('<script>window.__pwned=1</script>'), "bob's note's markup is not shown as text");
  await nothingRan(s, 'home timeline');
  await page.getByRole('list', { name: 'Home timeline' }).getByRole('listitem').filter({ hasText: 'Hello from bob' }).first()
    .getByRole('link', { name: /^Open the post/ }).first().click();
  await heading(s, 'Post');
  await main.getByText('Hello from bob').first().waitFor();
  await nothingRan(s, 'post detail');
  await s.h.screen('post-detail');

  await open(s, '/actor?q=' + encodeURIComponent(s.remote.acct));
  await main.getByText('ghost note 1').first().waitFor({ timeout: 15000 });
  assert((await main.innerText()).includes(HOSTILE_NAME), "ghost's display name is not shown as text");
  await main.locator('b', { hasText: 'bold' }).first().waitFor();
  await nothingRan(s, 'remote profile');
  await s.h.screen('remote-profile');
}

// Following ghost sends a Follow its inbox refuses with 410 Gone: the job
// goes to the dead letters at once. The Queue screen shows it with its
// error; once the inbox accepts, Retry delivers it and it leaves the dead
// letters.
export async function deadJob(s) {
  const page = s.page;
  await open(s, '/actor?q=' + encodeURIComponent(s.remote.acct));
  await page.getByRole('button', { name: 'Follow', exact: true }).click();
  await eventually('the Follow refused by ghost', () => s.remote.state.deliveries.some((d) => d.type === 'Follow' && !d.accepted));
  await eventually('a dead job', async () => (await ownerRPC(s, 'queue.stats')).dead > 0);
  await go(s, 'Queue');
  const dead = page.locator('main li').filter({ hasText: '410' });
  await dead.first().waitFor({ timeout: 15000 });
  await s.h.screen('queue');
  s.remote.state.refuse = false;
  await dead.first().getByRole('button', { name: /^Retry this/ }).click();
  await dead.first().getByRole('alertdialog').getByRole('button', { name: 'Retry', exact: true }).click();
  await page.getByText(/job is queued again/).first().waitFor();
  await eventually('ghost accepting the retried Follow', () => s.remote.state.deliveries.some((d) => d.type === 'Follow' && d.accepted));
  await eventually('the retried job gone from the dead letters', async () => (await page.locator('main li').filter({ hasText: '410' }).count()) === 0);
  const stats = await ownerRPC(s, 'queue.stats');
  assert(stats.dead === 0, `queue.stats still counts ${stats.dead} dead jobs`);
  await s.h.shot('queue-after-retry');
}

// A locked profile: bob's follow is a request, approved in Follows →
// requests; bob's server then counts the follow as accepted.
export async function approveRequest(s) {
  const page = s.page;
  await go(s, 'Profile');
  await page.getByLabel('Approve followers', { exact: true }).check();
  await page.getByRole('button', { name: 'Save profile' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  await s.h.screen('profile');
  const me = await ownerRPC(s, 'personas.get', {});
  assert(me.locked === true, 'the profile is not locked after saving');

  const acct = `@${s.spec.username}@${new URL(s.a).host}`;
  const onB = await b(s, 'actors.lookup', { q: acct });
  await b(s, 'follows.create', { actor_id: onB.id });
  // The request reaches A when bob's server delivers it: the list is
  // opened again until it is there (it loads when it opens).
  const row = page.locator('main li').filter({ hasText: 'Bob' });
  await eventually("bob's follow request in Requests", async () => {
    await go(s, 'Follows');
    await page.getByRole('navigation', { name: 'Lists' }).getByRole('link', { name: 'Requests' }).click();
    return row.first().waitFor({ timeout: 2000 }).then(() => true, () => false);
  }, { timeout: 15000 });
  await s.h.screen('follows-requests');
  await row.first().getByRole('button', { name: 'Approve', exact: true }).click();
  await row.first().getByRole('status').filter({ hasText: 'Approved' }).waitFor();
  await eventually("bob's server counting the follow as accepted", async () => (await b(s, 'follows.check', { actor_id: onB.id })).state === 'accepted');
}

// The theme picker: another theme chosen and saved in Site changes the
// public page's stylesheet.
export async function theme(s) {
  const page = s.page;
  const sheet = async () => {
    const { p } = await publicPage(s, '/');
    try {
      return await p.evaluate(() => [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => new URL(l.href).pathname).join(' '));
    } finally {
      await p.close();
    }
  };
  const before = await sheet();
  assert(before.includes('/themes/default/'), `the public page's stylesheets before: ${before}`);
  await go(s, 'Site');
  await page.getByRole('group', { name: 'Installed themes' }).getByLabel('dark', { exact: true }).check();
  // The live preview: the owner's post page in that theme.
  const frame = page.frameLocator('iframe[src*="/my/preview/dark"]');
  await eventually('the preview in the dark theme', async () => (await frame.locator('link[rel=stylesheet][href*="/themes/dark/"]').count()) > 0);
  await s.h.screen('site');
  await page.getByRole('button', { name: 'Apply dark' }).click();
  await page.getByRole('status').filter({ hasText: 'The public site now uses dark.' }).waitFor();
  const after = await sheet();
  assert(after.includes('/themes/dark/'), `after choosing dark the public page's stylesheets are ${after}`);
}

// A setting the server refuses: its message is shown next to the field,
// and nothing is saved.
export async function invalidSetting(s) {
  const page = s.page;
  await go(s, 'Site');
  const before = (await ownerRPC(s, 'site.get_settings', {})).language;
  await page.locator('main').getByLabel('Language', { exact: true }).fill('not a tag!');
  await page.getByRole('button', { name: 'Save settings' }).click();
  const msg = await fieldError(s, 'Language');
  assert(/must be a language tag/.test(msg), `next to Language the app says "${msg}"; want the server's message`);
  await s.h.shot('site-invalid-language');
  const after = (await ownerRPC(s, 'site.get_settings', {})).language;
  assert(after === before, `the refused language was stored: ${after}`);
}
