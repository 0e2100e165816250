// @vitest-environment node
// Source rules of the app (spa-core.md "Security"), checked over every file
// so a later change cannot quietly break them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}

const sources = files(src).map((p) => ({ name: relative(src, p), text: readFileSync(p, 'utf8') }));

describe('app sources', () => {
  it('set HTML only in ui/SafeHTML.tsx', () => {
    for (const { name, text } of sources) {
      if (name === join('ui', 'SafeHTML.tsx')) continue;
      expect(text, name).not.toMatch(/dangerouslySetInnerHTML|\.innerHTML\s*=|outerHTML\s*=|insertAdjacentHTML|document\.write/);
    }
  });

  it('use no eval, no inline styles', () => {
    for (const { name, text } of sources) {
      expect(text, name).not.toMatch(/\beval\(|new Function\(/);
      expect(text, name).not.toMatch(/\sstyle=\{/);
    }
  });

  it('keep only the language and the compose draft in web storage', () => {
    let seen = 0;
    for (const { name, text } of sources) {
      expect(text, name).not.toMatch(/sessionStorage/);
      for (const m of text.matchAll(/\b(?:localStorage|storage)\.(?:setItem|getItem|removeItem)\(([^,)]+)/g)) {
        expect(['STORAGE_KEY', 'DRAFT_KEY'], `${name}: ${m[1]}`).toContain(m[1]!.trim());
        seen++;
      }
    }
    expect(seen).toBeGreaterThanOrEqual(4); // the check does look at the real calls
  });
});
