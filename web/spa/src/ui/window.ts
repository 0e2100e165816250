// The bounded window of a long cursor-paginated list (timeline, notifications,
// posts…). Pages are appended as the owner scrolls; when the window holds more
// than `max` items the oldest-loaded page (at the top) is dropped and its
// cursor remembered, so "show newer" can load it back — dropping the page at
// the bottom in turn. The DOM therefore never holds much more than `max`
// items, however far the owner scrolls.

export interface WindowPage<T> {
  /** The cursor this page was loaded with (null: the first page). */
  cursor: string | null;
  items: T[];
  next: string | null;
}

export interface ListWindow<T> {
  pages: WindowPage<T>[];
  /** Cursors of the pages dropped from the top, oldest drop first. */
  dropped: (string | null)[];
  /** The list has no more pages below. */
  done: boolean;
}

export function emptyWindow<T>(): ListWindow<T> {
  return { pages: [], dropped: [], done: false };
}

export function windowSize<T>(w: ListWindow<T>): number {
  return w.pages.reduce((n, p) => n + p.items.length, 0);
}

export function windowItems<T>(w: ListWindow<T>): T[] {
  return w.pages.flatMap((p) => p.items);
}

/** The cursor to load below the window, or undefined when there is nothing more. */
export function nextCursor<T>(w: ListWindow<T>): string | null | undefined {
  if (w.pages.length === 0) return w.done ? undefined : null;
  if (w.done) return undefined;
  return w.pages[w.pages.length - 1]!.next ?? undefined;
}

export function appendPage<T>(w: ListWindow<T>, page: WindowPage<T>, max: number): ListWindow<T> {
  const pages = [...w.pages, page];
  const dropped = [...w.dropped];
  let size = pages.reduce((n, p) => n + p.items.length, 0);
  while (size > max && pages.length > 1) {
    const first = pages.shift()!;
    dropped.push(first.cursor);
    size -= first.items.length;
  }
  return { pages, dropped, done: page.next === null };
}

/** The cursor of the page to load back above the window (undefined: none was dropped). */
export function newerCursor<T>(w: ListWindow<T>): string | null | undefined {
  return w.dropped.length ? w.dropped[w.dropped.length - 1] : undefined;
}

export function prependPage<T>(w: ListWindow<T>, page: WindowPage<T>, max: number): ListWindow<T> {
  const pages = [page, ...w.pages];
  const dropped = w.dropped.slice(0, -1);
  let done = w.done;
  let size = pages.reduce((n, p) => n + p.items.length, 0);
  while (size > max && pages.length > 1) {
    size -= pages.pop()!.items.length;
    done = false; // what was dropped below can be loaded again
  }
  return { pages, dropped, done };
}
