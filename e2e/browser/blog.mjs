#!/usr/bin/env node
// blog.mjs <baseURL> <outdir> <pages.json>
// blog.mjs --serve <outdir>   (one pages.json path per line of stdin)
//
// Loads the pages of one theme of a running murlog in Debian's headless
// chromium (playwright-core drives /usr/bin/chromium; nothing downloads a
// browser) at each width, and checks what issue 8 asks of them: no
// console or page errors, no CSP violations, no layout shift after
// hydration, share buttons only where enabled and in the fixed order, the
// widget and analytics scripts requested only when enabled and inserted by
// script, vertical writing in the vertical theme, no horizontal overflow
// of horizontal themes at 360 px, JSON-LD and Open Graph that say what
// the page is — and (issue 15) no text where no scrolling brings it, no
// clipped placeholder, each tag of a post once on a tag page, a sideways
// scroll that starts at the right edge with a cue, no wide gaps in
// justified text. It writes <outdir>/<theme>-<page>-<width>.png (full page),
// <outdir>/<theme>-<page>.html (the server's bytes, for the Nu checker)
// and <outdir>/<theme>[-<run>]-report.json, prints the failures and exits 1 when
// there are any (2 on a harness error). A few pages load at once (POOL).
// With --serve the browser stays up for run after run: each line of
// standard input names a pages.json (with its "base"), and each run's
// output ends with a line "blog.mjs done N", N its failed page loads
// (or "error"), so that the test can change the site before the next.
//
// pages.json (written by e2e/blog_browser_test.go):
//   { "base": "http://127.0.0.1:P" (--serve only), "theme": "default", "run": "share" (names the report), "vertical": false, "widths": [360, 1280],
//     "share": ["x", "facebook", "line", "hatena"],  // enabled on this run
//     "ga": "G-…" or "",                               // measurement id set
//     "pages": [ { "name": "post", "path": "/@alice/…", "id": "…", "kind": "post",
//                  "status": 200, "title": "…", "image": "https://…",
//                  "share": true, "jsonld": "BlogPosting" }, … ] }
// Requests to any host but the server's are answered here (an empty
// script, an empty document, a 1×1 PNG): the machine has no internet,
// and no widget or analytics host may be contacted for real.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { chromium } from 'playwright-core';
import { watch, inspect, layoutFacts } from './inpage.mjs';
import { checkPage, expectedScripts } from './checks.mjs';

const CHROMIUM = process.env.MURLOG_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
// A 1×1 transparent PNG: what every external image request gets.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
// How long hydration may take before it counts as never finished.
const HYDRATE_TIMEOUT = 10000;
// Time after hydration in which a late shift or a widget script still counts.
const SETTLE_MS = 500;
// How long after a quiet network the harness still waits for a page's
// hydration signal before it takes the quiet network for the end.
const QUIET_GRACE_MS = 3000;

// How many pages load at once, in one browser: their waits (hydration,
// the settle time) overlap. MURLOG_BROWSER_PAGES overrides it.
const POOL = Math.max(1, Number(process.env.MURLOG_BROWSER_PAGES) || 4);
// The line that ends each run in --serve mode, then its failed page
// loads (or "error" on a harness error).
const DONE = 'blog.mjs done';

async function main() {
  const args = process.argv.slice(2);
  const serve = args[0] === '--serve';
  const [base, outdir, pagesFile] = serve ? [null, args[1], null] : args;
  if (!outdir || (!serve && (!base || !pagesFile))) {
    console.error('usage: blog.mjs <baseURL> <outdir> <pages.json> | blog.mjs --serve <outdir>');
    return 2;
  }
  fs.mkdirSync(outdir, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'murlog-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 800 },
    serviceWorkers: 'block', acceptDownloads: false,
  });
  try {
    if (!serve) return await runSpec(ctx, base, outdir, pagesFile) ? 1 : 0;
    // --serve: one pages.json per line of standard input, each run in
    // the same browser once the test has set the site up for it.
    let failed = false;
    for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (!line.trim()) continue;
      let n;
      try {
        n = await runSpec(ctx, null, outdir, line.trim());
      } catch (err) {
        console.log('blog.mjs:', err && err.stack ? err.stack : err);
        n = 'error';
      }
      if (n) failed = true;
      console.log(`${DONE} ${n}`);
    }
    return failed ? 1 : 0;
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

// runSpec loads every page of one pages.json at every width, POOL at a
// time, writes its report and prints it; it returns the failed loads.
async function runSpec(ctx, base, outdir, pagesFile) {
  const spec = JSON.parse(fs.readFileSync(pagesFile, 'utf8'));
  base = spec.base || base;
  const origin = new URL(base).origin;
  const report = { theme: spec.theme, base, chromium: ctx.browser()?.version() ?? null, results: [] };
  const jobs = [];
  for (const width of spec.widths || [360, 1280]) for (const pg of spec.pages) jobs.push({ pg, width });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      const { pg, width } = jobs[i];
      const r = await load(ctx, origin, spec, pg, width, outdir);
      r.warnings = [];
      r.failures = checkPage(spec, pg, width, r);
      report.results[i] = r;
    }
  };
  await Promise.all(Array.from({ length: Math.min(POOL, jobs.length) }, worker));
  fs.writeFileSync(path.join(outdir, `${spec.theme}${spec.run ? '-' + spec.run : ''}-report.json`), JSON.stringify(report, (k, v) => (k === 'html' ? undefined : v), 2));
  const failed = report.results.filter((r) => r.failures.length);
  for (const r of report.results) {
    console.log(`${r.failures.length ? 'FAIL' : 'ok  '} ${spec.theme} ${r.page} ${r.width}px  CLS ${r.cls.toFixed(4)} (hydration ${(r.hydrationCLS ?? 0).toFixed(4)})  ${r.ms} ms${r.externalScripts.length ? '  scripts: ' + r.externalScripts.join(' ') : ''}`);
    for (const f of r.failures) console.log(`       - ${f}`);
    for (const w of r.warnings) console.log(`       warning: ${w}`);
  }
  if (failed.length) console.log(`${failed.length} of ${report.results.length} page loads of theme ${spec.theme}${spec.run ? ' (' + spec.run + ')' : ''} failed`);
  return failed.length;
}

// load opens one page at one width and gathers everything checkPage needs.
async function load(ctx, origin, spec, pg, width, outdir) {
  const page = await ctx.newPage();
  await page.setViewportSize({ width, height: 800 });
  const started = Date.now();
  // Where the time of a load went (ms per phase), in the report.
  const phases = {};
  let lapAt = started;
  const lap = (name) => { const now = Date.now(); phases[name] = now - lapAt; lapAt = now; };
  const r = {
    phases,
    page: pg.name, width, path: pg.path, status: null, console: [], pageErrors: [], cspConsole: [],
    external: [], externalScripts: [], api: [], failedRequests: [], html: null, hydrated: null,
  };
  await page.addInitScript(watch);
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return;
    const text = m.text();
    const loc = m.location();
    if (/Content[- ]Security[- ]Policy/i.test(text)) r.cspConsole.push(text);
    else if (m.type() === 'error') r.console.push({ text, url: loc.url, line: loc.lineNumber });
  });
  page.on('pageerror', (e) => r.pageErrors.push(String(e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e)));
  page.on('requestfailed', (q) => {
    if (new URL(q.url()).origin === origin) r.failedRequests.push(`${q.method()} ${q.url()}: ${q.failure()?.errorText}`);
  });
  page.on('request', (q) => {
    const u = new URL(q.url());
    if (u.origin === origin && u.pathname.startsWith('/api/pub/')) r.api.push(`${q.method()} ${u.pathname}${u.search}`);
  });
  await page.route((u) => u.origin !== origin && (u.protocol === 'http:' || u.protocol === 'https:'), async (route) => {
    const q = route.request();
    const type = q.resourceType();
    r.external.push({ url: q.url(), type });
    if (type === 'script') {
      r.externalScripts.push(q.url());
      return route.fulfill({ status: 200, contentType: 'application/javascript', body: '/* murlog browser test: external script not loaded */\n' });
    }
    if (type === 'document') return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title>' });
    if (type === 'image') return route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
    if (type === 'stylesheet') return route.fulfill({ status: 200, contentType: 'text/css', body: '' });
    return route.fulfill({ status: 204, body: '' });
  });
  // The recent list's API response, awaited only on pages that hydrate
  // (caught now so that its timeout elsewhere is no unhandled rejection).
  const apiDone = page.waitForResponse((q) => /\/api\/pub\/personas\/[^/]+\/posts/.test(q.url()), { timeout: HYDRATE_TIMEOUT })
    .then(() => true, () => false);
  try {
    const resp = await page.goto(origin + pg.path, { waitUntil: 'load', timeout: 30000 });
    lap('load');
    r.status = resp ? resp.status() : null;
    r.headers = resp ? await resp.allHeaders() : {};
    r.html = resp ? await resp.text() : '';
    // Hydration: wait for the page's script to say it processed every
    // [data-murlog-hydrate] element (html[data-murlog-hydrated], or
    // data-hydrated on each element) — or, from a script that says
    // nothing, for its API response and a quiet network (a warning).
    const hasHydrate = await page.evaluate(() => document.querySelector('[data-murlog-hydrate]') !== null);
    if (hasHydrate) {
      const signal = page.waitForFunction(() => document.documentElement.hasAttribute('data-murlog-hydrated') ||
        [...document.querySelectorAll('[data-murlog-hydrate]')].every((e) => e.hasAttribute('data-hydrated')),
      null, { timeout: HYDRATE_TIMEOUT }).then(() => 'signal', () => null);
      const quiet = apiDone.then((ok) => (ok ? page.waitForLoadState('networkidle', { timeout: HYDRATE_TIMEOUT }).then(() => 'api', () => null) : null));
      // A quiet network wins only if the signal still has not come a
      // moment later: on a loaded machine a script that waits for a paint
      // (requestAnimationFrame) can say so after the network has been
      // quiet for its 500 ms, and its last changes would then be missed.
      const later = (v) => Promise.race([signal.then((s) => s ?? v), page.waitForTimeout(QUIET_GRACE_MS).then(() => v)]);
      r.hydrated = await Promise.race([signal, quiet.then((v) => (v ? later(v) : signal))]);
    }
    lap('hydrate');
    await page.waitForTimeout(SETTLE_MS);
    lap('settle');
    Object.assign(r, await page.evaluate(inspect));
    lap('inspect');
    Object.assign(r, await page.evaluate(layoutFacts));
    lap('layout');
    const shot = path.join(outdir, `${spec.theme}-${pg.name}-${width}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    r.screenshot = shot;
    lap('screenshot');
    if (width === (spec.widths || [360, 1280])[0]) {
      fs.writeFileSync(path.join(outdir, `${spec.theme}-${pg.name}.html`), r.html);
    }
  } catch (err) {
    r.harnessError = String(err && err.message ? err.message : err);
  } finally {
    r.ms = Date.now() - started;
    await page.close();
  }
  r.cls = r.cls ?? 0;
  r.expectedScripts = expectedScripts(spec, pg);
  return r;
}

main().then((code) => process.exit(code), (err) => {
  console.error('blog.mjs:', err && err.stack ? err.stack : err);
  process.exit(2);
});
