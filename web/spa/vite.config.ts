import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// The service worker's source (public/sw.js) holds one placeholder line,
// `const BUILD = {...};`. After the build this plugin rewrites the copy in the
// output directory with the built asset list and a build id derived from it,
// so a new build is a byte-different sw.js and the browser installs it
// (install → skipWaiting, activate → claim; see public/sw.js).
export const BUILD_LINE = /^const BUILD = \{.*\};$/m;

function serviceWorkerManifest(): Plugin {
  let outDir = '';
  return {
    name: 'murlog-sw-manifest',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    // The list is read from what was written, not from the bundle: Vite
    // drops chunks after generateBundle (the empty JS of a CSS-only chunk
    // shared by two screens), and a listed file that is missing would make
    // the worker's install fail.
    closeBundle() {
      const assets = readdirSync(join(outDir, 'assets')).map((f) => `assets/${f}`).sort();
      const file = join(outDir, 'sw.js');
      const src = readFileSync(file, 'utf8');
      const id = createHash('sha256').update(assets.join('\n')).digest('hex').slice(0, 16);
      const line = `const BUILD = ${JSON.stringify({ id, assets })};`;
      if (!BUILD_LINE.test(src)) throw new Error(`${file}: no "const BUILD = {…};" line to fill in`);
      writeFileSync(file, src.replace(BUILD_LINE, () => line));
    },
  };
}

export default defineConfig({
  base: '/my/',
  // Vite 8 transforms TSX with Oxc; Preact's automatic JSX runtime needs no plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    manifest: false,
    target: 'es2022',
    // The polyfill would be an inline script, which /my/'s CSP (script-src 'self') refuses.
    modulePreload: { polyfill: false },
  },
  plugins: [serviceWorkerManifest()],
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    // go test ./web/spa/ runs these beside the Go tests on two cores: leave room.
    testTimeout: 20_000,
    // Worker threads, and the test files of a worker sharing one module
    // graph and one happy-dom window: setting up a window and importing
    // Preact and the app again for each of ~30 files was half the run's
    // CPU time. Each file's kit resets what the app keeps between renders
    // (testing.ts, social/testkit.ts, settings/testing.ts: the language,
    // storage, stubbed fetch, timers, the route, the mounted tree), and
    // the files pass in any order (vitest --sequence.shuffle.files).
    pool: 'threads',
    isolate: false,
  },
});
