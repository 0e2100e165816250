// Helpers that drive the owner's app the way the owner does: by the names
// a screen reader would read (roles and labels, in English), never by the
// app's internal class names — except for the few marks named here.
import { assert, eventually } from './harness.mjs';

// The route under /my/ the page shows.
export function appPath(s) {
  const u = new URL(s.page.url());
  return u.pathname.replace(/^\/my/, '') + u.search;
}

// open loads /my/<path> as a fresh page load and waits for the screen's
// heading (every screen is a <Page> with one <h1>).
export async function open(s, path = '/') {
  await s.page.goto(s.a + '/my' + path, { waitUntil: 'load' });
  await heading(s);
}

// heading waits for the screen's <h1> and returns its text.
export async function heading(s, name) {
  const h1 = s.page.locator('main h1');
  if (name) await h1.filter({ hasText: name }).first().waitFor({ timeout: 15000 });
  else await h1.first().waitFor({ timeout: 15000 });
  return (await h1.first().textContent()).trim();
}

// go follows a link of the main navigation, as a click (an in-app
// navigation, not a page load), and waits for the screen's heading.
export async function go(s, label, headingText = label) {
  const nav = s.page.getByRole('navigation', { name: 'Main' });
  const menu = s.page.getByRole('button', { name: /^Menu/ });
  if (!(await nav.isVisible()) && (await menu.isVisible())) await menu.click();
  await nav.getByRole('link', { name: new RegExp('^' + label) }).click();
  await heading(s, headingText);
}

// loggedIn waits until the shell shows the owner's navigation.
export async function loggedIn(s) {
  await s.page.getByRole('button', { name: 'Log out' }).waitFor({ timeout: 15000 });
}

export async function logout(s) {
  await s.page.getByRole('button', { name: 'Log out' }).click();
  await heading(s, 'Log in');
}

// login fills the login screen: the password, then the code when one is
// given (the app asks for it after the password when two-factor login is
// on). It returns when the form answered: logged in, or an error shown.
export async function login(s, { password = s.spec.password, code } = {}) {
  const page = s.page;
  await heading(s, 'Log in');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  if (code === undefined) return;
  const field = page.getByLabel('Code', { exact: true });
  await field.waitFor({ timeout: 10000 });
  await field.fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
}

// fieldError returns the message shown next to the screen's control labelled
// label (its aria-describedby error), waiting for one.
export async function fieldError(s, label) {
  const input = s.page.locator('main').getByLabel(label, { exact: true });
  await eventually(`an error next to "${label}"`, async () => (await input.getAttribute('aria-invalid')) === 'true', { timeout: 10000 });
  const ids = ((await input.getAttribute('aria-describedby')) || '').split(/\s+/).filter(Boolean);
  const texts = [];
  for (const id of ids) texts.push(((await s.page.locator('#' + cssEscape(id)).textContent()) || '').trim());
  return texts.join(' ');
}

function cssEscape(id) {
  return id.replace(/([^A-Za-z0-9_-])/g, '\\$1');
}

// ownerRPC calls the API from inside the app's page with the owner's
// session cookie and the CSRF header, as the app does; it is how the test
// reads state the screens do not show (a post's public URL) and writes in
// bulk. Calls is one [method, params] or an array of them (a batch).
export async function ownerRPC(s, method, params = {}) {
  const batch = Array.isArray(method);
  const calls = batch ? method : [[method, params]];
  const res = await s.page.evaluate(async (calls) => {
    const csrf = document.cookie.split('; ').find((c) => c.startsWith('csrf_token='))?.slice(11) || '';
    const r = await fetch('/api/mur/v1/rpc', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': decodeURIComponent(csrf) },
      body: JSON.stringify(calls.map(([m, p], i) => ({ jsonrpc: '2.0', id: i + 1, method: m, params: p }))),
    });
    return r.json();
  }, calls);
  const bad = res.find((r) => r.error);
  if (bad) throw new Error(`${bad.error.message} (${bad.error.data?.code})`);
  return batch ? res.map((r) => r.result) : res[0].result;
}

// publicPage opens a path of the public site in a new tab, as a visitor
// would, and returns the page (closed by the caller) and its status.
export async function publicPage(s, path) {
  const p = await s.h.ctx.newPage();
  const resp = await p.goto(new URL(path, s.a).href, { waitUntil: 'load' });
  return { p, status: resp ? resp.status() : 0 };
}

// publicText returns the status and visible text of a public page.
export async function publicText(s, path) {
  const { p, status } = await publicPage(s, path);
  try {
    return { status, text: await p.locator('body').innerText() };
  } finally {
    await p.close();
  }
}

export { assert, eventually };
