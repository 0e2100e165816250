import { afterEach, describe, expect, it, vi } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { setLang } from '../i18n';
import { PullToRefresh, THRESHOLD } from './PullToRefresh';

let root: HTMLElement;
afterEach(() => {
  render(null, root);
  root.remove();
});

// touch dispatches a touch event whose one finger is at clientY y.
async function touch(el: Element, type: string, y?: number) {
  const ev = new Event(type, { bubbles: true });
  Object.defineProperty(ev, 'touches', { value: y === undefined ? [] : [{ clientY: y }] });
  await act(async () => {
    el.dispatchEvent(ev);
  });
}

async function mount(onRefresh: () => Promise<unknown> | void) {
  setLang('en');
  root = document.createElement('div');
  document.body.append(root);
  await act(() => render(<PullToRefresh onRefresh={onRefresh}><p>posts</p></PullToRefresh>, root));
  return root.querySelector('.ptr')!;
}

describe('PullToRefresh', () => {
  it('refreshes when pulled past the threshold from the top and let go', async () => {
    const onRefresh = vi.fn(async () => {});
    const el = await mount(onRefresh);
    await touch(el, 'touchstart', 100);
    await touch(el, 'touchmove', 100 + THRESHOLD / 2);
    expect(root.querySelector('[role=status]')!.textContent).not.toBe('');
    await touch(el, 'touchmove', 100 + THRESHOLD + 10);
    await touch(el, 'touchend');
    expect(onRefresh).toHaveBeenCalledTimes(1);
  });

  it('does nothing for a short pull, or when the page is scrolled down', async () => {
    const onRefresh = vi.fn();
    const el = await mount(onRefresh);
    await touch(el, 'touchstart', 100);
    await touch(el, 'touchmove', 100 + THRESHOLD - 5);
    await touch(el, 'touchend');
    expect(onRefresh).not.toHaveBeenCalled();

    Object.defineProperty(window, 'scrollY', { value: 500, configurable: true });
    try {
      await touch(el, 'touchstart', 100);
      await touch(el, 'touchmove', 100 + THRESHOLD * 3);
      await touch(el, 'touchend');
      expect(onRefresh).not.toHaveBeenCalled();
    } finally {
      Object.defineProperty(window, 'scrollY', { value: 0, configurable: true });
    }
  });
});
