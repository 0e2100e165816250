// Scenarios of the owner's account: the setup wizard, logging in and out
// (password, two-factor codes, recovery codes), API tokens, and a session
// that ends while the owner is writing.
import { assert, eventually, rpc, totp } from './harness.mjs';
import { fieldError, go, heading, loggedIn, login, logout, open, appPath } from './app-ui.mjs';

// The wizard, both steps, as a new owner fills it in: the app's build as
// web_dir, then the site; its last page opens /my/ logged in.
export async function wizard(s) {
  const page = s.page;
  await page.goto(s.a + '/', { waitUntil: 'load' });
  assert(new URL(page.url()).pathname === '/admin/setup/server', `a new site opens the wizard; got ${page.url()}`);
  await s.h.shot('wizard-server');
  await page.locator('#data_dir').fill('./data');
  await page.locator('#media_path').fill('./media');
  await page.locator('#web_dir').fill(s.spec.web_dir);
  await page.locator('#scheme').selectOption('http');
  await Promise.all([page.waitForURL(/\/admin\/setup$/), page.locator('form button[type=submit]').click()]);
  const domain = await page.locator('#domain').inputValue();
  assert(domain === new URL(s.a).host, `step 2 suggests the domain ${domain}; want ${new URL(s.a).host}`);
  await page.locator('#username').fill(s.spec.username);
  await page.locator('#display_name').fill('Owner of A');
  await page.locator('#site_name').fill('A in a browser');
  await page.locator('#password').fill(s.spec.password);
  await page.locator('#password_confirm').fill(s.spec.password);
  await s.h.shot('wizard-site');
  await page.locator('form button[type=submit]').click();
  const open = page.getByRole('link', { name: /\/my\// });
  await open.waitFor();
  await s.h.shot('wizard-done');
  await Promise.all([page.waitForURL(/\/my\/$/), open.click()]);
  await loggedIn(s);
  const h = await heading(s);
  assert(appPath(s) === '/', `the app opened at ${appPath(s)}`);
  s.h.note(`the app opened logged in at /my/ on "${h}"`);
}

// Logging out, a wrong password refused next to the field, the right one.
export async function passwordLogin(s) {
  await logout(s);
  await s.h.screen('login');
  // The login page names the site (the wizard's site name), not its
  // address or "murlog", in its header, title and description.
  const site = 'A in a browser';
  const brand = ((await s.page.getByRole('banner').getByRole('link').first().textContent()) || '').trim();
  assert(brand === site, `the header says "${brand}"; want the site name "${site}"`);
  const title = await s.page.title();
  assert(title === `Log in — ${site}`, `the login page's title is "${title}"; want "Log in — ${site}"`);
  const description = (await s.page.locator('meta[name="description"]').getAttribute('content')) || '';
  assert(description.includes(site), `the login page's description is "${description}"; want one naming the site`);
  await login(s, { password: 'not the password' });
  const msg = await fieldError(s, 'Password');
  assert(/wrong password/i.test(msg), `a wrong password says "${msg}"`);
  await login(s);
  await loggedIn(s);
  // The shell may show the owner's navigation a moment before it leaves
  // /login for the way back.
  await eventually('the app back at /', () => appPath(s) === '/', { timeout: 5000, interval: 50 }).catch(() => undefined);
  assert(appPath(s) === '/', `after login the app shows ${appPath(s)}`);
}

// An API token: created in Tokens, its secret shown once, it works for a
// script; a second one revoked stops working.
export async function tokens(s) {
  await go(s, 'Tokens');
  const page = s.page;
  const make = async (name) => {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create token' }).click();
    const box = page.getByRole('region', { name: `Token "${name}" created` });
    const secret = await eventually('the new token shown', async () => ((await box.innerText()).match(/mlg_[A-Za-z0-9_-]{40,}/) || [])[0]);
    await page.getByRole('button', { name: 'I copied it' }).click();
    return secret;
  };
  s.token = await make('browser test');
  const other = await make('to revoke');
  await eventually('the token list', async () => (await page.getByRole('button', { name: 'Revoke to revoke' }).count()) === 1);
  await s.h.screen('tokens');
  assert(!(await page.locator('main').innerText()).includes(s.token), 'a token is shown only once');
  const info = await rpc(s.a, s.token, 'site.info').catch((e) => ({ error: e.message + ' with ' + s.token }));
  assert(info.owner === true, `the new token is not the owner: ${JSON.stringify(info)}`);
  await page.getByRole('button', { name: 'Revoke to revoke' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
  // (The confirmation replaces the row's button: wait for the row itself.)
  await eventually('the revoked token gone from the list', async () => (await page.locator('main li').filter({ hasText: 'to revoke' }).count()) === 0);
  const after = await rpc(s.a, other, 'site.info').then(() => 'accepted', (e) => e.message);
  assert(/unauthorized/.test(after), `a revoked token is ${after}; want unauthorized`);
}

// Two-factor login: set up in Security with the secret read from the page
// and a code computed here (RFC 6238), the ten recovery codes kept; then
// logins with a code, a reused code, a recovery code once and twice.
export async function twoFactor(s) {
  const page = s.page;
  await go(s, 'Security');
  // The enrolment asks for the password first (a session alone cannot
  // enrol an authenticator): a wrong one is refused at its field.
  const section = page.locator('section[aria-labelledby=totp-h]');
  await section.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Set up two-factor login' }).click();
  const pw = section.getByLabel('Password', { exact: true });
  await eventually('the wrong password marked at its field', async () => (await pw.getAttribute('aria-invalid')) === 'true', { timeout: 10000 });
  const refused = await page.locator('[id="' + (await pw.getAttribute('aria-describedby')).split(/\s+/)[0] + '"]').textContent();
  assert(/match/i.test(refused), `a wrong password at setup says "${refused}"`);
  assert(await page.getByRole('img', { name: /QR code/ }).count() === 0, 'a wrong password started no enrolment');
  await section.getByLabel('Password', { exact: true }).fill(s.spec.password);
  await page.getByRole('button', { name: 'Set up two-factor login' }).click();
  const secret = (await page.getByLabel('Setup key').first().innerText()).replace(/\s+/g, '');
  assert(/^[A-Z2-7]{32}$/.test(secret), `the setup key reads "${secret}"`);
  assert(await page.getByRole('img', { name: /QR code/ }).isVisible(), 'the QR code is shown');
  s.secret = secret;
  await s.h.screen('security-setup');
  const verified = Math.floor(Date.now() / 30000);
  await page.getByLabel('Code from the app').fill(totp(secret, verified));
  await page.getByRole('button', { name: 'Verify and turn on' }).click();
  const codes = page.getByRole('region', { name: 'Recovery codes' }).getByRole('listitem');
  await codes.first().waitFor();
  s.recovery = (await codes.allInnerTexts()).map((c) => c.trim());
  assert(s.recovery.length === 10 && s.recovery.every((c) => /^[a-z0-9]{4}-[a-z0-9]{4}$/.test(c)), `recovery codes: ${s.recovery}`);
  await s.h.shot('security-recovery-codes');
  await page.getByLabel('I saved them').check();
  await page.getByRole('button', { name: 'Done' }).click();
  await eventually('two-factor login shown as on', async () => /\bOn\b/.test(await page.locator('main').innerText()));
  await s.h.screen('security');

  // The verification used up its step's code: the next step's (accepted
  // for clock skew) logs in…
  await logout(s);
  const code = totp(secret, verified + 1);
  await login(s, { code });
  await loggedIn(s);
  // …once: the same code again is refused, next to the code field, as is
  // a wrong one.
  await logout(s);
  const now = Math.floor(Date.now() / 30000);
  const near = [-1, 0, 1, 2].map((d) => totp(secret, now + d));
  const wrong = ['000000', '111111', '222222'].find((c) => !near.includes(c));
  await login(s, { code: wrong });
  const bad = await fieldError(s, 'Code');
  assert(/wrong or already used/i.test(bad), `a wrong code says "${bad}"`);
  await page.getByLabel('Code', { exact: true }).fill(code);
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/mur/v1/rpc') && (r.request().postData() || '').includes('"auth.login"'));
  await page.getByRole('button', { name: 'Verify' }).click();
  assert((await answer).status() === 401, 'the reused code was not refused by the server');
  const msg = await fieldError(s, 'Code');
  assert(/wrong or already used/i.test(msg), `a reused code says "${msg}"`);
  assert(await page.getByRole('button', { name: 'Log out' }).count() === 0, 'a reused code logged in');
  await s.h.screen('login-code');
  // A recovery code works, once.
  const rc = s.recovery.shift();
  await s.page.getByLabel('Code', { exact: true }).fill(rc);
  await page.getByRole('button', { name: 'Verify' }).click();
  await loggedIn(s);
  await logout(s);
  await login(s, { code: rc });
  const again = await fieldError(s, 'Code');
  assert(/wrong or already used/i.test(again), `a reused recovery code says "${again}"`);
  await page.getByLabel('Code', { exact: true }).fill(s.recovery.shift());
  await page.getByRole('button', { name: 'Verify' }).click();
  await loggedIn(s);
}

// relogin logs in again after the session ended, with a recovery code
// when two-factor login is on.
export async function relogin(s) {
  await login(s, s.secret ? { code: s.recovery.shift() } : {});
  await loggedIn(s);
}

// The session ends (its cookie is gone, as when it expired) while the
// owner writes: sending goes back to login, and after logging in the
// unsent text is still in the editor.
export async function expiredSession(s) {
  const page = s.page;
  await go(s, 'Compose');
  const text = 'Written while the session ended ' + Date.now();
  await page.getByLabel(/^Text/).first().fill(text);
  await s.h.ctx.clearCookies({ name: 'murlog_session' });
  await page.getByRole('button', { name: 'Publish' }).click();
  await heading(s, 'Log in');
  assert(/[?&]next=%2Fcompose/.test(page.url()), `login remembers the way back: ${page.url()}`);
  await relogin(s);
  await heading(s, 'Compose');
  const kept = await page.getByLabel(/^Text/).first().inputValue();
  assert(kept === text, `after login the editor holds "${kept}"; want the unsent "${text}"`);
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.getByText('Published.').waitFor();
}

export { open };
