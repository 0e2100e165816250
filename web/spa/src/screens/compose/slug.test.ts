import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_SLUG, RESERVED, slugify, slugProblem } from './slug';

// The table post/slug.go passes too.
const table = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../../../post/testdata/slugs.json'), 'utf8')) as {
  reserved: string[];
  titles: { title: string; slug: string; why: string }[];
};

describe('slugify', () => {
  it.each(table.titles)('$why: $title', ({ title, slug }) => {
    expect(slugify(title)).toBe(slug);
    expect(slugify(slug)).toBe(slug);
  });

  it('never gives a path segment that means something else', () => {
    for (const { title } of table.titles) {
      const s = slugify(title);
      expect(new TextEncoder().encode(s).length).toBeLessThanOrEqual(MAX_SLUG);
      expect(s).not.toMatch(/[/.%?#\0]|^-|-$|--/);
    }
  });
});

describe('slugProblem', () => {
  it('refuses what the server refuses, with the same reserved words', () => {
    expect([...RESERVED].sort()).toEqual(table.reserved);
    expect(slugProblem('')).toBeNull();
    expect(slugProblem('hello-world')).toBeNull();
    expect(slugProblem('日本語のタイトル')).toBeNull();
    expect(slugProblem('a'.repeat(MAX_SLUG))).toBeNull();
    expect(slugProblem('a'.repeat(MAX_SLUG + 1))).toBe('slug_long');
    expect(slugProblem('漢'.repeat(34))).toBe('slug_long');
    for (const s of ['Hello', 'hello world', 'hello--world', '-a', 'a-', 'café', 'a/b', 'a.b', '..', '🎉']) {
      expect(slugProblem(s), s).toBe('slug_invalid');
    }
    for (const s of [...RESERVED, '01a22c96-7857-70f9-bbb4-7a4a6ae66d4f', '01a22c96785770f9bbb47a4a6ae66d4f']) {
      expect(slugProblem(s), s).toBe('slug_reserved');
    }
    expect(slugProblem('search-2')).toBeNull();
  });
});
