// A long list loaded page by page as the owner scrolls (an
// IntersectionObserver on the "load more" button, which also works by click
// and keyboard), holding at most `max` items in the DOM (see window.ts).
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import type { Page } from '../rpc';
import { Button, Empty, ErrorBox, Loading } from './basic';
import { appendPage, emptyWindow, newerCursor, nextCursor, prependPage, windowItems, type ListWindow } from './window';

export const DEFAULT_MAX = 200;

export interface InfiniteListProps<T> {
  /** Loads one page; `cursor` null is the first page. */
  load: (cursor: string | null, signal: AbortSignal) => Promise<Page<T>>;
  render: (item: T) => ComponentChildren;
  keyOf: (item: T) => string;
  /** The most items kept in the DOM. */
  max?: number;
  empty?: ComponentChildren;
  /** Changing it reloads the list from the first page (filters, pull-to-refresh). */
  reloadKey?: unknown;
  /** Items to leave out of the DOM without reloading (e.g. just deleted). */
  exclude?: (item: T) => boolean;
  /** An accessible name for the list. */
  label?: string;
  class?: string;
}

export function InfiniteList<T>({ load, render, keyOf, max = DEFAULT_MAX, empty, reloadKey, exclude, label, class: cls }: InfiniteListProps<T>) {
  const [win, setWin] = useState<ListWindow<T>>(emptyWindow);
  const [busy, setBusy] = useState<'more' | 'newer' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const ctrl = useRef<AbortController | null>(null);
  const sentinel = useRef<HTMLButtonElement>(null);
  const winRef = useRef(win);
  winRef.current = win;
  const loadRef = useRef(load);
  loadRef.current = load;

  const fetchPage = useCallback(async (dir: 'more' | 'newer') => {
    const w = winRef.current;
    const cursor = dir === 'more' ? nextCursor(w) : newerCursor(w);
    if (cursor === undefined) return;
    ctrl.current?.abort();
    const c = new AbortController();
    ctrl.current = c;
    setBusy(dir);
    setError(null);
    try {
      const page = await loadRef.current(cursor, c.signal);
      if (c.signal.aborted) return;
      const wp = { cursor, items: page.items, next: page.next_cursor };
      setWin((cur) => (dir === 'more' ? appendPage(cur, wp, max) : prependPage(cur, wp, max)));
    } catch (err) {
      if (!c.signal.aborted) setError(err);
    } finally {
      if (ctrl.current === c) {
        ctrl.current = null;
        setBusy(null);
      }
    }
  }, [max]);

  useEffect(() => {
    setWin(emptyWindow());
    winRef.current = emptyWindow();
    void fetchPage('more');
    return () => ctrl.current?.abort();
  }, [reloadKey, fetchPage]);

  const more = nextCursor(win) !== undefined && win.pages.length > 0;
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === 'undefined' || error) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !ctrl.current) void fetchPage('more');
    }, { rootMargin: '600px 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [more, error, fetchPage, win]);

  const all = windowItems(win);
  const items = exclude ? all.filter((it) => !exclude(it)) : all;
  if (win.pages.length === 0) {
    if (error) return <ErrorBox error={error} onRetry={() => void fetchPage('more')} />;
    return <Loading />;
  }
  if (items.length === 0 && win.done && win.dropped.length === 0) return <Empty>{empty}</Empty>;

  return (
    <div class={'infinite' + (cls ? ' ' + cls : '')}>
      {newerCursor(win) !== undefined && (
        <Button class="newer" busy={busy === 'newer'} onClick={() => void fetchPage('newer')}>
          {t('ui.newer')}
        </Button>
      )}
      <ul class="list" aria-label={label} aria-busy={busy ? 'true' : undefined}>
        {items.map((it) => (
          <li key={keyOf(it)}>{render(it)}</li>
        ))}
      </ul>
      {error && <ErrorBox error={error} onRetry={() => void fetchPage('more')} />}
      {more && !error ? (
        <button
          type="button"
          class="button more"
          ref={sentinel}
          disabled={busy === 'more'}
          aria-busy={busy === 'more' ? 'true' : undefined}
          onClick={() => void fetchPage('more')}
        >
          {busy === 'more' ? t('ui.loading') : t('ui.more')}
        </button>
      ) : (
        !more && <p class="end">{t('ui.end')}</p>
      )}
    </div>
  );
}
