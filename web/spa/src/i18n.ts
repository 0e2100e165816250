// Translations. `t(key, vars)` looks the key up in the current language's
// dictionary (i18n/ja.ts, i18n/en.ts) and fills `{name}` placeholders.
// The language is the owner's choice kept in localStorage "murlog.lang",
// else the browser's first preferred language (ja* → ja, anything else → en).
import { en, type Key } from './i18n/en';
import { ja } from './i18n/ja';
import { createStore, useStore } from './store';

export type { Key };
export type Lang = 'ja' | 'en';
export const LANGS: readonly Lang[] = ['ja', 'en'];
export const LANG_NAMES: Record<Lang, string> = { ja: '日本語', en: 'English' };
export const dictionaries: Record<Lang, Record<Key, string>> = { ja, en };

const STORAGE_KEY = 'murlog.lang';

export function detectLang(stored: string | null, languages: readonly string[]): Lang {
  if (stored === 'ja' || stored === 'en') return stored;
  const first = (languages[0] ?? '').toLowerCase();
  return first === 'ja' || first.startsWith('ja-') ? 'ja' : 'en';
}

function storedLang(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

const lang = createStore<Lang>(detectLang(storedLang(), typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language]));
if (typeof document !== 'undefined') document.documentElement.lang = lang.get();

export function getLang(): Lang {
  return lang.get();
}

/** Switches the language, remembers the choice and re-renders every useLang() user. */
export function setLang(l: Lang): void {
  try {
    localStorage.setItem(STORAGE_KEY, l);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  document.documentElement.lang = l;
  lang.set(l);
}

export function t(key: Key, vars?: Record<string, string | number>): string {
  const s = dictionaries[lang.get()][key] ?? en[key] ?? key;
  if (!vars) return s;
  return s.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** Re-renders the calling component (and so its subtree) when the language changes. */
export function useLang(): Lang {
  return useStore(lang);
}
