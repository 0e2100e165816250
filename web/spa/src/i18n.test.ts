import { describe, expect, it } from 'vitest';
import { detectLang, dictionaries, getLang, setLang, t } from './i18n';
import { en } from './i18n/en';
import { ja } from './i18n/ja';

describe('dictionaries', () => {
  it('ja and en have exactly the same keys', () => {
    const a = Object.keys(ja).sort();
    const b = Object.keys(en).sort();
    expect(a.filter((k) => !b.includes(k))).toEqual([]);
    expect(b.filter((k) => !a.includes(k))).toEqual([]);
  });

  it('has no empty text and the same {placeholders} in both languages', () => {
    for (const [lang, dict] of Object.entries(dictionaries)) {
      for (const [k, v] of Object.entries(dict)) {
        expect(v.trim(), `${lang} ${k}`).not.toBe('');
      }
    }
    const vars = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort().join(',');
    for (const k of Object.keys(en) as (keyof typeof en)[]) {
      expect(vars(ja[k]), k).toBe(vars(en[k]));
    }
  });
});

describe('language', () => {
  it('prefers the stored choice, else the first browser language', () => {
    expect(detectLang('en', ['ja-JP'])).toBe('en');
    expect(detectLang('ja', ['en-US'])).toBe('ja');
    expect(detectLang(null, ['ja-JP', 'en'])).toBe('ja');
    expect(detectLang(null, ['ja'])).toBe('ja');
    expect(detectLang(null, ['en-GB', 'ja'])).toBe('en');
    expect(detectLang(null, ['fr'])).toBe('en');
    expect(detectLang('xx', [])).toBe('en');
  });

  it('setLang switches t(), remembers the choice and sets <html lang>', () => {
    setLang('ja');
    expect(getLang()).toBe('ja');
    expect(t('nav.home')).toBe('ホーム');
    expect(document.documentElement.lang).toBe('ja');
    expect(localStorage.getItem('murlog.lang')).toBe('ja');
    setLang('en');
    expect(t('nav.home')).toBe('Home');
    expect(document.documentElement.lang).toBe('en');
  });

  it('fills placeholders and leaves unknown ones alone', () => {
    setLang('en');
    expect(t('err.rate_limited', { seconds: 30 })).toBe('Too many attempts. Try again in 30 seconds.');
    expect(t('err.rate_limited')).toContain('{seconds}');
  });
});
