import { afterEach, describe, expect, it } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { setLang } from '../i18n';
import { RPCError, type Page } from '../rpc';
import { InfiniteList } from './InfiniteList';

const flush = async () => {
  for (let i = 0; i < 5; i++) await act(async () => await Promise.resolve());
};

function fakeServer(total: number, size = 20) {
  let fails = 0;
  const load = async (cursor: string | null): Promise<Page<{ id: string }>> => {
    if (fails > 0) {
      fails--;
      throw new RPCError(0, 'network', 'network');
    }
    const start = cursor === null ? 0 : Number(cursor);
    const items = Array.from({ length: Math.min(size, total - start) }, (_, i) => ({ id: String(start + i) }));
    return { items, next_cursor: start + size < total ? String(start + size) : null };
  };
  return { load, failNext: (n: number) => (fails = n) };
}

let root: HTMLElement;
afterEach(() => {
  render(null, root);
  root.remove();
});

async function mount(total: number) {
  setLang('en');
  root = document.createElement('div');
  document.body.append(root);
  const server = fakeServer(total);
  await act(() =>
    render(<InfiniteList load={server.load} keyOf={(x) => x.id} render={(x) => <span class="it">{x.id}</span>} label="items" />, root),
  );
  await flush();
  return server;
}

const more = () => [...root.querySelectorAll('button')].find((b) => b.textContent === 'Load more');
const newer = () => [...root.querySelectorAll('button')].find((b) => b.textContent === 'Show newer');

describe('InfiniteList', () => {
  it('keeps at most 200 items in the DOM while loading 1,000', async () => {
    await mount(1000);
    expect(root.querySelectorAll('li')).toHaveLength(20);
    for (let i = 0; i < 49; i++) {
      await act(() => more()!.click());
      await flush();
      expect(root.querySelectorAll('li').length).toBeLessThanOrEqual(200);
    }
    expect(root.querySelectorAll('li')).toHaveLength(200);
    expect(root.querySelector('li')!.textContent).toBe('800');
    expect(more()).toBeUndefined();
    expect(root.textContent).toContain('That is all.');
    // the dropped pages can be brought back
    await act(() => newer()!.click());
    await flush();
    expect(root.querySelector('li')!.textContent).toBe('780');
    expect(root.querySelectorAll('li')).toHaveLength(200);
    expect(more()).toBeDefined();
  });

  it('shows the empty state', async () => {
    await mount(0);
    expect(root.textContent).toContain('Nothing here yet.');
  });

  it('shows an error with retry, and retry loads the page', async () => {
    setLang('en');
    root = document.createElement('div');
    document.body.append(root);
    const server = fakeServer(30);
    server.failNext(1);
    await act(() => render(<InfiniteList load={server.load} keyOf={(x) => x.id} render={(x) => x.id} />, root));
    await flush();
    expect(root.querySelector('[role=alert]')!.textContent).toContain('could not be reached');
    const retry = [...root.querySelectorAll('button')].find((b) => b.textContent === 'Retry')!;
    await act(() => retry.click());
    await flush();
    expect(root.querySelector('[role=alert]')).toBeNull();
    expect(root.querySelectorAll('li')).toHaveLength(20);
  });
});
