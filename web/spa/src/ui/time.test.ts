import { afterEach, describe, expect, it } from 'vitest';
import { setLang } from '../i18n';
import { fullTime, relativeTime } from './basic';

describe('relativeTime and fullTime', () => {
  afterEach(() => setLang('en'));

  it('follow a change of language (their formatters are made once per language)', () => {
    const now = Date.parse('2026-03-04T12:00:00Z');
    const before = new Date(now - 3 * 3600 * 1000).toISOString();
    setLang('en');
    expect(relativeTime(before, now)).toBe('3 hours ago');
    expect(fullTime('2026-03-04T12:00:00Z')).toMatch(/Mar 4, 2026/);
    setLang('ja');
    expect(relativeTime(before, now)).toBe('3 時間前');
    expect(fullTime('2026-03-04T12:00:00Z')).toMatch(/2026\/03\/04/);
    setLang('en');
    expect(relativeTime(before, now)).toBe('3 hours ago');
  });
});
