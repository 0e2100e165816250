#!/usr/bin/env node
// sw.mjs <postURL>
//
// The reader's offline worker in Debian's headless chromium
// (playwright-core drives /usr/bin/chromium; nothing downloads a
// browser), for e2e/sw_browser_test.go:
//  1. open the post: hydrate.js registers /sw.js, which takes control;
//     reload online (the worker keeps the page), then offline: the post
//     renders from the worker's cache, its stylesheets applied, while a
//     request the worker has never seen fails (the network is off for it
//     too); the pointer hydration read online answers offline, but not
//     once its kept copy is past its 60 s.
//  2. print "sw.mjs switch" and wait for a line on standard input: the
//     test switches the worker off through the API meanwhile.
//  3. open the post again: the worker is unregistered and the murlog
//     caches are gone, and stay gone after another load.
// It prints one line "sw.mjs result <json>" of what it saw (the test
// judges it) and exits 0, or 2 on a harness error. Console messages that
// name integrity (an SRI mismatch blocks the asset) are in the result.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.MURLOG_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const WAIT = 10000; // ms for any one state to be reached

// state is what the page says of the worker and its caches.
const state = () => page.evaluate(async () => {
  const regs = await navigator.serviceWorker.getRegistrations();
  const keys = (await caches.keys()).filter((k) => k.startsWith('murlog-blog-'));
  const pages = keys.includes('murlog-blog-pages')
    ? (await (await caches.open('murlog-blog-pages')).keys()).map((r) => new URL(r.url).pathname) : [];
  return {
    sw: document.documentElement.getAttribute('data-murlog-sw'),
    controlled: navigator.serviceWorker.controller !== null,
    registrations: regs.map((r) => r.scope),
    caches: keys.sort(),
    pages,
  };
});

let page;

async function main() {
  const postURL = process.argv[2];
  if (!postURL) {
    console.error('usage: sw.mjs <postURL>');
    return 2;
  }
  const post = new URL(postURL);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'murlog-chromium-sw-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, serviceWorkers: 'allow', acceptDownloads: false,
  });
  const started = Date.now();
  const result = { console: [], pageErrors: [] };
  try {
    page = ctx.pages()[0] || await ctx.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') result.console.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => result.pageErrors.push(String(e)));
    const waitFor = (fn, arg) => page.waitForFunction(fn, arg, { timeout: WAIT });

    // 1. Registered and in control, then the post kept.
    await page.goto(post.href, { waitUntil: 'load' });
    await waitFor(() => document.documentElement.hasAttribute('data-murlog-sw'));
    result.first = await state();
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await waitFor(() => navigator.serviceWorker.controller !== null).catch(() => {});
    result.registered = await state();
    await page.reload({ waitUntil: 'load' });
    await waitFor((p) => caches.open('murlog-blog-pages').then((c) => c.match(p)).then((r) => !!r), post.pathname).catch(() => {});
    await waitFor(() => caches.open('murlog-blog-data').then((c) => c.keys()).then((k) => k.some((r) => r.url.includes('/posts?')))).catch(() => {});
    result.kept = await state();

    // Offline: the post from the cache, styled; anything new fails.
    await ctx.setOffline(true);
    const resp = await page.reload({ waitUntil: 'load' }).catch((e) => ({ error: String(e) }));
    result.offline = {
      error: resp && resp.error ? resp.error : null,
      status: resp && resp.status ? resp.status() : null,
      fromServiceWorker: resp && resp.fromServiceWorker ? resp.fromServiceWorker() : false,
      ...await page.evaluate(async () => ({
        title: document.title,
        h1: document.querySelector('h1')?.textContent.trim() ?? null,
        stylesheets: [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => {
          let rules = -1;
          try { rules = l.sheet ? l.sheet.cssRules.length : -1; } catch (e) { rules = -2; }
          return { href: new URL(l.href).pathname, integrity: l.integrity, rules };
        }),
        unseen: await fetch('/api/pub/posts/by-ids?ids=' + Date.now()).then((r) => `answered ${r.status}`, () => 'failed'),
      })),
      // The pointer hydration read online a moment ago answers offline;
      // once its copy is 61 s old it no longer does.
      ...await page.evaluate(async () => {
        const d = JSON.parse(document.getElementById('murlog-data').textContent);
        const url = d.posts_api + (d.posts_api.includes('?') ? '&' : '?') + 'limit=' + encodeURIComponent(String(d.recent_count));
        const get = () => fetch(url, { headers: { Accept: 'application/json' } }).then((r) => `answered ${r.status}`, () => 'failed');
        const fresh = await get();
        const c = await caches.open('murlog-blog-data');
        const hit = await c.match(url);
        if (!hit) return { pointerFresh: fresh, pointerStale: 'not kept' };
        const h = new Headers(hit.headers);
        h.set('x-murlog-stored', String(Date.now() - 61000));
        await c.put(url, new Response(await hit.blob(), { status: hit.status, headers: h }));
        return { pointerFresh: fresh, pointerStale: await get() };
      }),
    };
    await ctx.setOffline(false);

    // 2. The test switches the worker off.
    console.log('sw.mjs switch');
    const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    await lines.next();

    // 3. The next visit removes it.
    await page.goto(post.href, { waitUntil: 'load' });
    await waitFor(() => document.documentElement.getAttribute('data-murlog-sw') === 'off').catch(() => {});
    await waitFor(async () => (await navigator.serviceWorker.getRegistrations()).length === 0 &&
      (await caches.keys()).every((k) => !k.startsWith('murlog-blog-'))).catch(() => {});
    result.off = await state();
    await page.goto(post.href, { waitUntil: 'load' });
    await waitFor(() => document.documentElement.getAttribute('data-murlog-sw') === 'off').catch(() => {});
    result.offAgain = await state();
    result.integrityErrors = result.console.filter((m) => /integrity/i.test(m));
    result.ms = Date.now() - started;
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log('sw.mjs result ' + JSON.stringify(result));
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  console.error('sw.mjs:', err && err.stack ? err.stack : err);
  process.exit(2);
});
