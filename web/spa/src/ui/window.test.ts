import { describe, expect, it } from 'vitest';
import { appendPage, emptyWindow, newerCursor, nextCursor, prependPage, windowItems, windowSize, type ListWindow } from './window';

// A fake server list of `total` items in pages of `size`, newest first; a
// page's cursor is the index of its first item.
function serverPage(cursor: string | null, total: number, size: number) {
  const start = cursor === null ? 0 : Number(cursor);
  const items = Array.from({ length: Math.min(size, total - start) }, (_, i) => start + i);
  const next = start + size < total ? String(start + size) : null;
  return { cursor, items, next };
}

describe('list window', () => {
  it('stays bounded while scrolling through 1,000 items and ends with done', () => {
    let w: ListWindow<number> = emptyWindow();
    let loads = 0;
    for (let c = nextCursor(w); c !== undefined; c = nextCursor(w)) {
      w = appendPage(w, serverPage(c, 1000, 20), 200);
      loads++;
      expect(windowSize(w)).toBeLessThanOrEqual(200);
    }
    expect(loads).toBe(50);
    expect(w.done).toBe(true);
    const items = windowItems(w);
    expect(items[items.length - 1]).toBe(999);
    expect(items[0]).toBe(800);
    expect(w.dropped).toHaveLength(40);
  });

  it('loads dropped pages back above, dropping below, and can scroll down again', () => {
    let w: ListWindow<number> = emptyWindow();
    for (let i = 0; i < 15; i++) w = appendPage(w, serverPage(nextCursor(w)!, 1000, 20), 200);
    expect(windowItems(w)[0]).toBe(100);
    expect(newerCursor(w)).toBe('80');
    w = prependPage(w, serverPage(newerCursor(w)!, 1000, 20), 200);
    expect(windowItems(w)[0]).toBe(80);
    expect(windowSize(w)).toBe(200);
    expect(windowItems(w)[199]).toBe(279);
    expect(nextCursor(w)).toBe('280');
    // back to the top
    while (newerCursor(w) !== undefined) w = prependPage(w, serverPage(newerCursor(w)!, 1000, 20), 200);
    expect(windowItems(w)[0]).toBe(0);
    expect(newerCursor(w)).toBeUndefined();
    expect(windowSize(w)).toBe(200);
    // and down again without gaps
    w = appendPage(w, serverPage(nextCursor(w)!, 1000, 20), 200);
    expect(windowItems(w)).toEqual(Array.from({ length: 200 }, (_, i) => 20 + i));
  });

  it('a short list is done after its only page; an empty first page is done too', () => {
    const w = appendPage(emptyWindow<number>(), serverPage(null, 5, 20), 200);
    expect(w.done).toBe(true);
    expect(nextCursor(w)).toBeUndefined();
    const e = appendPage(emptyWindow<number>(), serverPage(null, 0, 20), 200);
    expect(windowItems(e)).toEqual([]);
    expect(nextCursor(e)).toBeUndefined();
    expect(nextCursor(emptyWindow())).toBeNull();
  });
});
