// @vitest-environment node
// Builds the app into a temporary directory, as `npm run build -- --outDir`
// does, and checks what the server and the CSP rely on: no inline script or
// style, content-hashed assets, the service worker's filled-in asset list,
// the PWA files, and the entry chunk's size budget (≤ 60 KB gzip).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let out = '';

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'murlog-spa-'));
  await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'silent', build: { outDir: out } });
}, 120_000);
afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('build output', () => {
  it('index.html loads one module script and has no inline script or style', () => {
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![1]).toMatch(/type="module"/);
    expect(scripts[0]![1]).toMatch(/src="\/my\/assets\/index-[\w-]+\.js"/);
    expect(scripts[0]![2]!.trim()).toBe('');
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son\w+=/);
    expect(html).toContain('<link rel="manifest" href="/my/manifest.webmanifest">');
    expect(html).toContain('name="viewport" content="width=device-width, initial-scale=1"');
  });

  it('emits content-hashed assets and screens as separate chunks', () => {
    const assets = readdirSync(join(out, 'assets'));
    for (const a of assets) expect(a).toMatch(/^[\w.]+-[\w-]{8}\.(js|css)$/);
    for (const s of ['Compose', 'Login', 'Timeline', 'Security']) expect(assets.some((a) => a.startsWith(s + '-'))).toBe(true);
  });

  it('keeps the entry chunk within 60 KB gzip and free of eval', () => {
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const entry = /src="\/my\/(assets\/index-[\w-]+\.js)"/.exec(html)![1]!;
    const js = readFileSync(join(out, entry));
    const gz = gzipSync(js, { level: 9 }).length;
    console.log(`entry chunk ${entry}: ${js.length} bytes, ${gz} bytes gzip`);
    expect(gz).toBeLessThanOrEqual(60 * 1024);
    for (const a of readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.js'))) {
      const src = readFileSync(join(out, 'assets', a), 'utf8');
      expect(src, a).not.toMatch(/\beval\(|new Function\(/);
    }
  });

  it('fills the service worker with this build\'s asset list and id', () => {
    const sw = readFileSync(join(out, 'sw.js'), 'utf8');
    const m = /^const BUILD = (\{.*\});$/m.exec(sw);
    expect(m).not.toBeNull();
    const b = JSON.parse(m![1]!) as { id: string; assets: string[] };
    expect(b.id).toMatch(/^[0-9a-f]{16}$/);
    const assets = readdirSync(join(out, 'assets')).map((a) => 'assets/' + a).sort();
    expect(b.assets).toEqual(assets);
    expect(sw).toContain("startsWith('/api/')");
  });

  it('ships the manifest and icons', () => {
    const m = JSON.parse(readFileSync(join(out, 'manifest.webmanifest'), 'utf8'));
    expect(m).toMatchObject({ name: 'murlog', start_url: '/my/', scope: '/my/', display: 'standalone' });
    for (const icon of m.icons as { src: string }[]) {
      const f = join(out, icon.src.replace('/my/', ''));
      expect(existsSync(f), icon.src).toBe(true);
    }
    const png = readFileSync(join(out, 'icon-512.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(512);
  });
});
