#!/usr/bin/env node
// app.mjs <outdir> <spec.json>
//
// Drives the owner's app at /my/ of a running, not yet set up murlog (A)
// in Debian's headless chromium (playwright-core drives /usr/bin/chromium
// with a fresh profile; nothing downloads a browser), scenario after
// scenario, each asserting what the owner sees; a second murlog (B, owner
// bob) is the account to federate with, and app/remote.mjs plays a third
// server answering with raw HTML and refusing deliveries. Every page is
// watched for console errors, page errors and CSP violations, every
// screen is checked with axe-core and kept as screenshots at 360 and 1280
// px in <outdir>; <outdir>/report.json has the findings, the axe results
// and the recorded figures, which are also printed. Exit 1 when anything
// failed, 2 on a harness error.
//
// spec.json (written by e2e/app_browser_test.go):
//   { "a": "http://127.0.0.1:P", "username", "password", "web_dir", "rebuild": [cmd…], "next_dir", "spa_dir",
//     "b": "http://127.0.0.1:Q", "b_acct": "@bob@127.0.0.1:Q", "b_token": "mlg_…" }
import fs from 'node:fs';
import { Harness } from './app/harness.mjs';
import { startRemote } from './app/remote.mjs';
import * as account from './app/account.mjs';
import * as posts from './app/posts.mjs';
import * as social from './app/social.mjs';
import * as shell from './app/shell.mjs';

// Console errors a scenario causes on purpose: the browser logs every
// 401 and every refused request, and the app's own answer to them is
// what the scenario checks.
const HTTP_400 = /Failed to load resource: the server responded with a status of 400/;
const HTTP_401 = /Failed to load resource: the server responded with a status of 401/;
const NET_FAILED = /Failed to load resource: net::ERR_(FAILED|INTERNET_DISCONNECTED|CONNECTION_REFUSED)/;
const HTTP_500 = /Failed to load resource: the server responded with a status of 500/;

// MURLOG_APP_SCENARIOS=draft,theme runs only the scenarios whose names
// contain one of the words (while working on one), after these.
const ALWAYS = ['setup wizard', 'the harness sees faults'];

async function main() {
  const [outdir, specFile] = process.argv.slice(2);
  if (!outdir || !specFile) {
    console.error('usage: app.mjs <outdir> <spec.json>');
    return 2;
  }
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
  fs.mkdirSync(outdir, { recursive: true });
  const h = new Harness(outdir);
  const remote = await startRemote();
  const s = { h, spec, a: spec.a, page: await h.launch(), remote, nextBuild: null };
  const only = (process.env.MURLOG_APP_SCENARIOS || '').split(',').filter(Boolean);
  const steps = [
    ['setup wizard', account.wizard],
    ['the harness sees faults', () => h.selfTest()],
    ['logout and password login', account.passwordLogin, { allow: [HTTP_401] }],
    ['api tokens', account.tokens, { allow: [HTTP_401] }],
    ['compose a note and an article', posts.noteAndArticle],
    // The next version of the app builds in the background from here on,
    // while the scenarios wait for the scheduled time and the servers.
    ['schedule a post', (s) => { shell.buildNext(s); return posts.scheduled(s); }, { allow: [/status of 404/] }],
    ['keep a draft', posts.draft, { allow: [/status of 404/] }],
    ['over the length limit', posts.overLimit],
    ['server error while sending', posts.serverError, { allow: [HTTP_500, NET_FAILED] }],
    // The scheduled post's time has come while the three scenarios above ran.
    ['a scheduled post appears at its time', posts.scheduledAppears, { allow: [/status of 404/] }],
    ['1,000 posts: warm paint and a bounded DOM', posts.thousand],
    ['follow bob and read his posts', social.followRemote],
    ['remote HTML and scripts never run', social.hostileContent],
    ['a dead job retried', social.deadJob],
    ['locked: approve a follow request', social.approveRequest],
    ['theme change on the public site', social.theme],
    ['an invalid setting', social.invalidSetting, { allow: [/status of 400/] }],
    ['two-factor login', account.twoFactor, { allow: [HTTP_400, HTTP_401] }],
    ['session ends while composing', account.expiredSession, { allow: [HTTP_401] }],
    ['every screen: axe and screenshots', shell.tour],
    ['keyboard focus', shell.keyboard],
    ['offline shell', shell.offline, { allow: [NET_FAILED] }],
    ['a new version without a hard reload', shell.update, { allow: [NET_FAILED] }],
  ];
  try {
    for (const [name, fn, opts] of steps) {
      if (only.length && !only.some((o) => name.includes(o)) && !ALWAYS.includes(name)) continue;
      await h.run(name, () => fn(s), opts);
      if (h.findings.some((f) => f.scenario === 'setup wizard')) break; // nothing else can run
    }
  } finally {
    await h.close();
    await remote.close();
    await s.nextBuild?.catch(() => undefined);
  }
  const failed = h.write();
  if (failed) {
    console.log(`${failed} failures`);
    return 1;
  }
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  console.error('app.mjs:', err && err.stack ? err.stack : err);
  process.exit(2);
});
