// Scenarios of the app as a whole: every screen through axe-core and
// screenshots, keyboard focus, the offline shell, and a new build picked
// up without a hard reload.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { assert, eventually } from './harness.mjs';
import { go, heading, open } from './app-ui.mjs';

// The screens of the main navigation: [nav label, screenshot name].
const SCREENS = [['Home', 'home'], ['Compose', 'compose'], ['Posts', 'posts'], ['Notifications', 'notifications'],
  ['Follows', 'follows'], ['Blocks', 'blocks'], ['Profile', 'profile'], ['Site', 'site'], ['Queue', 'queue'],
  ['Security', 'security'], ['Tokens', 'tokens']];

// settled waits until a screen shows no loading indicator in main.
async function settled(s) {
  await eventually('the screen loaded', async () => (await s.page.locator('main .loading').count()) === 0, { timeout: 15000 });
}

// Every screen of the navigation, as the owner reaches it (in-app
// navigation): loaded, axe-core's serious and critical violations none,
// screenshots at both widths. Screens already checked in their scenario
// are checked again in their final state.
export async function tour(s) {
  await open(s, '/');
  for (const [label, name] of SCREENS) {
    await go(s, label);
    await settled(s);
    await s.h.screen('tour-' + name);
  }
  // In Japanese (the language switch): the shell's words change, the
  // page says its language, and it is still accessible.
  await s.page.getByRole('combobox', { name: 'Language' }).first().selectOption('ja');
  await s.page.getByRole('navigation').getByRole('link', { name: 'ホーム' }).waitFor();
  assert((await s.page.evaluate(() => document.documentElement.lang)) === 'ja', 'in Japanese <html lang> is not ja');
  await s.h.screen('tour-tokens-ja');
  await s.page.getByRole('combobox', { name: '言語' }).selectOption('en');
  await s.page.getByRole('navigation').getByRole('link', { name: 'Home' }).waitFor();
  // The narrow layout: the nav is behind the menu button, which says
  // whether it is open.
  await s.page.setViewportSize({ width: 360, height: 800 });
  const menu = s.page.getByRole('button', { name: /^Menu/ });
  assert(await menu.isVisible(), 'at 360 px there is no menu button');
  assert((await menu.getAttribute('aria-expanded')) === 'false', 'the menu button does not say it is closed');
  await menu.click();
  assert((await menu.getAttribute('aria-expanded')) === 'true', 'the menu button does not say it is open');
  await s.h.shot('menu-open', { widths: [360] });
  await s.h.checkAxe('menu-open');
  const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert(overflow <= 0, `at 360 px the app is ${overflow} px wider than the screen`);
  await s.page.setViewportSize({ width: 1280, height: 800 });
}

// focusReport describes the focused element and whether its focus is
// visible: it matches :focus-visible and has an outline (or a box shadow).
async function focused(page) {
  return page.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return null;
    const cs = getComputedStyle(e);
    return {
      tag: e.tagName.toLowerCase(), text: (e.getAttribute('aria-label') || e.textContent || e.getAttribute('name') || '').trim().slice(0, 40),
      inNav: !!e.closest('nav'), inCompose: !!e.closest('main form'), focusVisible: e.matches(':focus-visible'),
      outline: `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`,
      visible: (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none',
    };
  });
}

// Tab from the top of the compose screen reaches the skip link, the nav
// and the compose form, each with a visible focus outline.
export async function keyboard(s) {
  await open(s, '/compose');
  await s.page.locator('main textarea').first().waitFor();
  const page = s.page;
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const seen = [];
  let nav = null;
  let form = null;
  for (let i = 0; i < 40 && !(nav && form); i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (!f) continue;
    seen.push(f);
    if (!f.visible || !f.focusVisible) throw new Error(`focus on ${f.tag} "${f.text}" is not visible: outline ${f.outline}, :focus-visible ${f.focusVisible}`);
    if (f.inNav && !nav) nav = f;
    if (f.inCompose && f.tag === 'textarea' && !form) form = f;
  }
  assert(nav, `Tab never reached the navigation: ${seen.map((f) => f.tag + ' ' + f.text).join(', ')}`);
  assert(form, `Tab never reached the compose form's text: ${seen.map((f) => f.tag + ' ' + f.text).join(', ')}`);
  s.h.note(`focus outline: nav "${nav.text}" ${nav.outline}; compose ${form.tag} ${form.outline}; ${seen.length} Tab stops`);
  await s.h.shot('keyboard-focus', { widths: [1280] });
}

// With the service worker active, offline: /my/ still opens from the
// cached shell and says it is offline; back online it works again.
export async function offline(s) {
  const page = s.page;
  await open(s, '/');
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await open(s, '/');
  assert(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'no service worker controls /my/');
  await s.h.ctx.setOffline(true);
  try {
    await page.reload({ waitUntil: 'load' });
    await page.locator('.banner.offline, [role=status]').filter({ hasText: 'You are offline' }).first().waitFor({ timeout: 15000 });
    assert(await page.locator('header').first().isVisible(), 'offline, the shell did not load');
    await s.h.shot('offline');
  } finally {
    await s.h.ctx.setOffline(false);
  }
  await open(s, '/');
  await eventually('the offline banner gone', async () => (await page.getByText('You are offline').count()) === 0);
}

// buildNext starts spec.rebuild, which builds another version of the app
// into spec.next_dir, in the background (while the scenarios run), once:
// s.nextBuild is a promise of that folder, rejected with the build's
// output if it fails.
export function buildNext(s) {
  if (s.nextBuild) return s.nextBuild;
  const spec = s.spec;
  const [cmd, ...args] = spec.rebuild;
  const built = new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: spec.spa_dir, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${spec.rebuild.join(' ')}: ${err.message}\n${stdout}${stderr}`));
      else resolve(spec.next_dir);
    });
  });
  built.catch(() => undefined); // awaited by update, which reports a failure
  s.nextBuild = built;
  return built;
}

// Another build of the app written into web_dir while the app is open
// (as make web on the server): the next ordinary navigation runs the new
// version, and the service worker holds only the new build's cache.
export async function update(s) {
  const page = s.page;
  await open(s, '/');
  const entry = async () => page.evaluate(() => document.querySelector('script[type=module][src]')?.getAttribute('src'));
  const oldEntry = await entry();
  const oldCaches = await page.evaluate(() => caches.keys());
  // The new version goes where the old one is, as `make web` would put it.
  const t0 = Date.now();
  const next = await buildNext(s);
  const waited = Date.now() - t0;
  for (const f of fs.readdirSync(s.spec.web_dir)) fs.rmSync(path.join(s.spec.web_dir, f), { recursive: true, force: true });
  fs.cpSync(next, s.spec.web_dir, { recursive: true });
  const index = fs.readFileSync(path.join(s.spec.web_dir, 'index.html'), 'utf8');
  const newEntry = (index.match(/<script[^>]*type="module"[^>]*src="([^"]+)"/) || index.match(/src="([^"]+\.js)"/))[1];
  const id = (fs.readFileSync(path.join(s.spec.web_dir, 'sw.js'), 'utf8').match(/"id":"([0-9a-f]+)"/) || [])[1];
  assert(newEntry && newEntry !== oldEntry, `the rebuild made no new entry chunk (${oldEntry} → ${newEntry})`);
  // The owner follows a link: an in-app navigation first (the app may
  // turn it into a page load once it knows of the new version), then an
  // ordinary load of /my/ — never a hard reload.
  await go(s, 'Posts');
  await page.goto(s.a + '/my/', { waitUntil: 'load' });
  await heading(s);
  await eventually('the new version running', async () => (await entry()) === newEntry, { timeout: 15000 });
  // The app's own caches only: the public pages visited before registered
  // the reader's worker, whose murlog-blog-* caches are not the app's.
  await eventually("the new build's cache, the old one's gone", async () => {
    const keys = await page.evaluate(() => caches.keys());
    return keys.includes('murlog-shell-' + id) &&
      !keys.some((k) => k.startsWith('murlog-shell-') && oldCaches.includes(k) && k !== 'murlog-shell-' + id);
  }, { timeout: 15000 });
  const banner = await page.getByText('A new version of the app is ready.').count();
  s.h.note(`update: ${oldEntry} → ${newEntry}, cache murlog-shell-${id}; "new version" banner ${banner ? 'shown' : 'not shown (already running it)'}; ` +
    `the build was awaited ${waited} ms, the new version ran ${Date.now() - t0 - waited} ms after it was installed`);
  await go(s, 'Home');
}
