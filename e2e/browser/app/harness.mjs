// The harness of app.mjs: the browser, what every page is watched for
// (console errors, CSP violations, page errors), axe-core, screenshots,
// RPC calls from node, RFC 6238 codes, and small waiting helpers.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.MURLOG_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
export const WIDTHS = [360, 1280];

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// Harness is one test run: one browser profile, the findings, the report.
export class Harness {
  constructor(outdir) {
    this.outdir = outdir;
    this.findings = []; // { scenario, kind, text }: each fails the run
    this.notes = []; // { scenario, text }: printed, not failures
    this.figures = {}; // recorded measurements
    this.axe = {}; // screen → { serious, other }
    this.screens = []; // screenshots taken
    this.scenario = 'start';
    this.allowed = []; // console error patterns the current scenario expects
  }

  async launch() {
    this.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'murlog-app-chromium-'));
    this.ctx = await chromium.launchPersistentContext(this.profile, {
      executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 800 },
      locale: 'en-US', serviceWorkers: 'allow', acceptDownloads: false,
    });
    // Every page and worker of the profile is watched, the pages the app
    // opens itself included.
    await this.ctx.addInitScript(watchPage);
    await this.ctx.exposeBinding('__murlogCSP', (src, v) => this.fail('csp', `${v.directive} blocked ${v.blocked} (${v.source}:${v.line}) on ${src.page?.url()}`));
    this.ctx.on('console', (m) => {
      if (m.type() !== 'error') return;
      const text = m.text();
      const where = m.location()?.url || '';
      if (/Content[- ]Security[- ]Policy/i.test(text)) return this.fail('csp', `${text} (${where})`);
      if (this.allowed.some((re) => re.test(text))) return this.note(`expected console error: ${text}`);
      this.fail('console', `${text} (${where})`);
    });
    this.ctx.on('weberror', (e) => this.fail('pageerror', String(e.error()?.stack || e.error()).split('\n').slice(0, 3).join(' | ')));
    // A control that is not there fails its scenario in 10 s, not 30.
    this.ctx.setDefaultTimeout(10000);
    this.page = this.ctx.pages()[0] || (await this.ctx.newPage());
    return this.page;
  }

  async close() {
    await this.ctx?.close().catch(() => undefined);
    if (this.profile) fs.rmSync(this.profile, { recursive: true, force: true });
  }

  fail(kind, text) {
    this.findings.push({ scenario: this.scenario, kind, text });
  }

  note(text) {
    this.notes.push({ scenario: this.scenario, text });
  }

  // run runs one scenario; a thrown error is a finding, and the next
  // scenario still runs (from a fresh page at the app).
  async run(name, fn, { allow = [] } = {}) {
    this.scenario = name;
    this.allowed = allow;
    const started = Date.now();
    let ok = true;
    try {
      await fn();
    } catch (err) {
      ok = false;
      this.fail('scenario', String(err && err.stack ? err.stack.split('\n').slice(0, 6).join('\n    ') : err));
      await this.shot('FAILED-' + name.replace(/\W+/g, '-'), { widths: [1280] }).catch(() => undefined);
    }
    const failed = this.findings.some((f) => f.scenario === name);
    console.log(`${failed ? 'FAIL' : 'ok  '} ${name}  ${Date.now() - started} ms`);
    this.allowed = [];
    return ok && !failed;
  }

  // shot keeps full-page screenshots of the page at each width, as
  // <name>-<width>.png, and puts the viewport back.
  async shot(name, { widths = WIDTHS, page = this.page } = {}) {
    const vp = page.viewportSize();
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 800 });
      await frames(page);
      const file = path.join(this.outdir, `${name}-${w}.png`);
      await page.screenshot({ path: file, fullPage: true });
      this.screens.push(path.basename(file));
    }
    if (vp) await page.setViewportSize(vp);
  }

  // checkAxe runs axe-core on the page: serious and critical violations
  // are findings, the others are printed.
  async checkAxe(screen, page = this.page) {
    const res = await axeViolations(page);
    const serious = res.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    const other = res.filter((v) => !serious.includes(v));
    this.axe[screen] = { serious: serious.map((v) => v.id), other: other.map((v) => `${v.id} (${v.impact})`) };
    for (const v of serious) this.fail('axe', `${screen}: ${v.impact} ${v.id}: ${v.help}\n      ${v.nodes.join('\n      ')}`);
    for (const v of other) this.note(`axe ${screen}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length} nodes)`);
  }

  // screen is what every visited screen gets: axe and screenshots.
  async screen(name, page = this.page) {
    await this.checkAxe(name, page);
    await this.shot(name, { page });
  }

  // selfTest shows that the harness sees each fault it looks for, on the
  // app's own page: an inline script (refused by the CSP), a console
  // error, and markup axe-core must call critical. What it caused is not
  // kept as a finding; a fault it missed is one.
  async selfTest(page = this.page) {
    const before = this.findings.length;
    await page.evaluate(() => {
      const sc = document.createElement('script');
      sc.textContent = 'window.__murlogInline = 1';
      document.body.append(sc);
      console.error('murlog harness self-test');
    });
    // The reports come back asynchronously: the CSP violation through the
    // binding and in the console, the console error.
    const reported = (kind, re) => this.findings.slice(before).some((f) => f.kind === kind && re.test(f.text));
    await eventually('the self-test faults reported',
      () => reported('csp', / blocked /) && reported('csp', /Content[- ]Security[- ]Policy/i) && reported('console', /self-test/),
      { timeout: 3000, interval: 20 }).catch(() => undefined);
    const caused = this.findings.splice(before);
    for (const kind of ['csp', 'console']) {
      if (!caused.some((f) => f.kind === kind)) this.fail('harness', `an inline script and a console.error on /my/ gave no "${kind}" finding`);
    }
    if (await page.evaluate(() => window.__murlogInline === 1)) this.fail('harness', "an inline script ran on /my/: the CSP does not hold");
    const probe = await this.ctx.newPage();
    try {
      await probe.setContent('<!doctype html><html lang="en"><title>probe</title><main><img src="data:,"><input></main></html>');
      const ids = (await axeViolations(probe)).filter((v) => v.impact === 'critical').map((v) => v.id);
      for (const id of ['image-alt', 'label']) if (!ids.includes(id)) this.fail('harness', `axe-core did not report ${id} on a page made to break it (got ${ids})`);
      // A time typed into a datetime-local input reads back the same, at
      // a whole minute too (schedule a post types one).
      await probe.setContent('<!doctype html><html lang="en"><title>probe</title><input type="datetime-local" step="1" aria-label="at"></html>');
      for (const d of [new Date(2026, 0, 2, 3, 4, 0), new Date(2026, 0, 2, 3, 4, 5)]) {
        const v = localInput(d);
        const got = await probe.locator('input').fill(v).then(() => probe.locator('input').inputValue(), (err) => String(err.message).split('\n')[0]);
        if (got !== v) this.fail('harness', `a datetime-local input given ${v} (localInput) reads ${got}`);
      }
    } finally {
      await probe.close();
    }
  }

  record(name, value) {
    this.figures[name] = value;
  }

  write() {
    const report = { findings: this.findings, notes: this.notes, figures: this.figures, axe: this.axe, screenshots: this.screens };
    fs.writeFileSync(path.join(this.outdir, 'report.json'), JSON.stringify(report, null, 2));
    for (const n of this.notes) console.log(`       note [${n.scenario}]: ${n.text}`);
    for (const [k, v] of Object.entries(this.figures)) console.log(`figure ${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
    for (const f of this.findings) console.log(`FAILURE [${f.scenario}] ${f.kind}: ${f.text}`);
    return this.findings.length;
  }
}

// frames waits for two animation frames of page: a resized page has
// laid itself out and painted.
async function frames(page) {
  await page.evaluate(() => new Promise((r) => {
    requestAnimationFrame(() => requestAnimationFrame(r));
    setTimeout(r, 1000); // a page that paints no frames (hidden) goes on
  }));
}

// axeViolations runs axe-core on the page. Its source is evaluated
// through the DevTools protocol, not as a page script: the app's CSP
// (script-src 'self') applies to the app, not to the test.
async function axeViolations(page) {
  await page.evaluate(`(() => { if (!window.axe) { ${AXE}\n } })()`);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\n').slice(0, 2).join(' ')) }));
  });
}

// watchPage runs in every page before its scripts (an init script, which
// the page's CSP does not apply to): it reports each CSP violation, and
// notes in window.__murlogFirstItem when the first item of a list was
// rendered (ms since the navigation started: the timeline's first post).
function watchPage() {
  document.addEventListener('securitypolicyviolation', (e) => {
    const report = window.__murlogCSP;
    if (typeof report === 'function') report({ directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber });
  });
  const mo = new MutationObserver(() => {
    if (document.querySelector('ul[aria-label="Home timeline"] > li')) {
      window.__murlogFirstItem = performance.now();
      mo.disconnect();
    }
  });
  mo.observe(document, { childList: true, subtree: true });
}

// rpc calls method on base's JSON-RPC endpoint with a bearer token (a
// script's way in) and returns the result; an error response throws.
export async function rpc(base, token, method, params = {}) {
  const res = await fetch(base + '/api/mur/v1/rpc', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${base} ${method}: ${body.error.message} (${body.error.data?.code})`);
  return body.result;
}

// rpcBatch sends up to 100 calls as one JSON-RPC batch; any error throws.
export async function rpcBatch(base, token, calls) {
  const res = await fetch(base + '/api/mur/v1/rpc', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token },
    body: JSON.stringify(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: i + 1, method, params }))),
  });
  const body = await res.json();
  const bad = body.find((r) => r.error);
  if (bad) throw new Error(`batch: ${bad.error.message}`);
  return body.map((r) => r.result);
}

// totp is the RFC 6238 code (HMAC-SHA1, 6 digits, 30 s steps) of a base32
// secret at step (default: now).
export function totp(secret, step = Math.floor(Date.now() / 30000)) {
  const key = base32(secret);
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(step));
  const mac = crypto.createHmac('sha1', key).update(msg).digest();
  const off = mac[mac.length - 1] & 0xf;
  const bin = ((mac[off] & 0x7f) << 24) | (mac[off + 1] << 16) | (mac[off + 2] << 8) | mac[off + 3];
  return String(bin % 1e6).padStart(6, '0');
}

function base32(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) {
    const i = alphabet.indexOf(c);
    if (i < 0) throw new Error(`not base32: ${c}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

// RFC 6238's SHA-1 test vector (appendix B), checked before any code is used.
if (totp('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', Math.floor(59 / 30)) !== '287082') {
  throw new Error('totp: RFC 6238 test vector failed');
}

// eventually retries check (an async function returning a truthy value
// when done) every interval ms until timeout, and throws with what.
export async function eventually(what, check, { timeout = 15000, interval = 250 } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

// localInput is a date as a datetime-local input takes it: local time,
// to the second — without ":00" seconds, which the input drops (its value
// would then differ from what was typed: playwright's "Malformed value").
export function localInput(d) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}` +
    (d.getSeconds() ? `:${p(d.getSeconds())}` : '');
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}
