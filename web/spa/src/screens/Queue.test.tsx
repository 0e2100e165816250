import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'preact/test-utils';
import { setLang } from '../i18n';
import type { Job, Stats } from '../settings/queue';
import { button, byLabel, callsOf, click, failure, mount, settle, stubRPC, unmount } from '../settings/testing';
import Queue from './Queue';

const job = (id: string, over: Partial<Job> = {}): Job => ({
  id, topic: 'ap.deliver', state: 'dead', priority: 0, attempt: 5, max_attempts: 5,
  last_error: `POST https://remote.example/inbox: HTTP 500 (${id})`, run_at: '2026-04-10T12:00:00Z',
  enqueued_at: '2026-04-10T11:00:00Z', started_at: null, finished_at: '2026-04-10T12:00:00Z', dead_topic: 'ap.deliver.dead', ...over,
});
const domain = (d: string, dead = false) => ({
  domain: d, failure_count: dead ? 12 : 3, first_failure_at: '2026-04-10T10:00:00Z', last_failure_at: '2026-04-10T12:00:00Z',
  last_error: 'connection refused', dead,
});

function queueServer() {
  const s = {
    dead: [job('j1'), job('j2', { topic: 'posts.cleanup', last_error: '' }), job('j3')],
    domains: [domain('dead.example', true), domain('slow.example')],
    stats: (): Stats => ({
      pending: 0, scheduled: 1, running: 0, done: 40, dead: s.dead.length,
      topics: { 'ap.deliver': { dead: s.dead.filter((j) => j.topic === 'ap.deliver').length, done: 40, scheduled: 1 }, 'posts.cleanup': { dead: s.dead.filter((j) => j.topic === 'posts.cleanup').length } },
    }),
    retryAnswer: null as unknown,
  };
  const calls = stubRPC({
    'queue.tick': () => ({ status: 'ok' }),
    'queue.stats': () => s.stats(),
    'queue.list': (p) => {
      if (p.state === 'scheduled') return { items: [job('s1', { state: 'scheduled', attempt: 2, last_error: 'HTTP 503' })], next_cursor: null };
      if (p.state !== 'dead') return { items: [], next_cursor: null };
      const from = p.cursor ? s.dead.findIndex((j) => j.id === p.cursor) + 1 : 0;
      const items = s.dead.slice(from, from + 2);
      return { items, next_cursor: from + 2 < s.dead.length ? items[items.length - 1]!.id : null };
    },
    'queue.retry': (p) => {
      if (s.retryAnswer) return s.retryAnswer;
      s.dead = s.dead.filter((j) => j.id !== p.id);
      return { status: 'ok' };
    },
    'queue.dismiss': (p) => ((s.dead = s.dead.filter((j) => j.id !== p.id)), { status: 'ok' }),
    'queue.vacuum': () => ({ deleted: 38 }),
    'domains.list_failures': () => ({ items: s.domains, next_cursor: null }),
    'domains.reset_failure': (p) => ((s.domains = s.domains.filter((d) => d.domain !== p.domain)), { status: 'ok' }),
  });
  return { s, calls };
}

const render = () => mount(<Queue params={{}} query={new URLSearchParams()} />);
const jobs = (root: HTMLElement) => [...root.querySelectorAll('section:nth-of-type(2) li.job')].map((li) => li.querySelector('.job-error')?.textContent ?? '-');

beforeEach(() => setLang('en'));
afterEach(() => {
  unmount();
  vi.useRealTimers();
});

describe('Queue', () => {
  it('shows the counts by state and topic, and the dead jobs with their errors and attempts', async () => {
    queueServer();
    const root = await render();
    const counts = [...root.querySelectorAll('.queue-counts > div')].map((d) => d.textContent);
    expect(counts).toEqual(['Pending0', 'Scheduled1', 'Running0', 'Done40', 'Dead3']);
    const topics = [...root.querySelectorAll('.queue-topics tbody tr')].map((r) => [...r.children].map((c) => c.textContent).join(' '));
    expect(topics).toEqual(['ap.deliver 0 1 0 40 2', 'posts.cleanup 0 0 0 0 1']);
    expect(jobs(root)).toEqual(['Last error: POST https://remote.example/inbox: HTTP 500 (j1)', '-']);
    expect(root.textContent).toContain('attempt 5 of 5');
    expect(root.textContent).toContain('No error.');
  });

  it('retries a dead job after asking, and the job leaves the list', async () => {
    const { calls } = queueServer();
    const root = await render();
    await click(button(root, 'Retry this ap.deliver job'));
    const confirm = root.querySelector('[role=alertdialog]')!;
    expect(confirm.textContent).toContain('Run this ap.deliver job again');
    expect(callsOf(calls, 'queue.retry')).toHaveLength(0);
    await click([...confirm.querySelectorAll('button')].find((b) => b.textContent === 'Retry')!);
    expect(callsOf(calls, 'queue.retry').map((c) => c.params)).toEqual([{ id: 'j1' }]);
    expect(root.querySelector('[role=alertdialog]')).toBeNull();
    expect(jobs(root)).toEqual(['-']);
    expect(root.querySelector('.notice')!.textContent).toBe('The ap.deliver job is queued again.');
    expect(root.querySelector('.queue-counts > div:last-child')!.textContent).toBe('Dead2');
  });

  it('dismisses only when confirmed, and keeps a job whose retry failed', async () => {
    const { s, calls } = queueServer();
    const root = await render();
    await click(button(root, 'Dismiss this posts.cleanup job'));
    await click(button(root.querySelector('[role=alertdialog]') as HTMLElement, 'Cancel'));
    expect(callsOf(calls, 'queue.dismiss')).toHaveLength(0);
    expect(jobs(root)).toHaveLength(2);
    await click(button(root, 'Dismiss this posts.cleanup job'));
    await click(button(root.querySelector('[role=alertdialog]') as HTMLElement, 'Dismiss'));
    expect(callsOf(calls, 'queue.dismiss').map((c) => c.params)).toEqual([{ id: 'j2' }]);
    expect(jobs(root)).toHaveLength(1);

    s.retryAnswer = failure('not_found', 'job not found', -32001);
    await click(button(root, 'Retry this ap.deliver job'));
    await click(button(root.querySelector('[role=alertdialog]') as HTMLElement, 'Retry'));
    expect(root.querySelector('li.job [role=alert]')!.textContent).toContain('does not exist');
    expect(jobs(root)).toHaveLength(1);
  });

  it('pages through the jobs and filters by state', async () => {
    const { calls } = queueServer();
    const root = await render();
    expect(button(root, 'Previous page').disabled).toBe(true);
    await click(button(root, 'Next page'));
    expect(callsOf(calls, 'queue.list').at(-1)!.params).toEqual({ state: 'dead', limit: 20, cursor: 'j2' });
    expect(jobs(root)).toEqual(['Last error: POST https://remote.example/inbox: HTTP 500 (j3)']);
    expect(root.textContent).toContain('Page 2');
    await click(button(root, 'Previous page'));
    expect(callsOf(calls, 'queue.list').at(-1)!.params).toEqual({ state: 'dead', limit: 20 });
    expect(jobs(root)).toHaveLength(2);

    const state = byLabel(root, 'State') as unknown as HTMLSelectElement;
    await act(() => {
      state.value = 'scheduled';
      state.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await settle();
    expect(callsOf(calls, 'queue.list').at(-1)!.params).toEqual({ state: 'scheduled', limit: 20 });
    expect(jobs(root)).toEqual(['Last error: HTTP 503']);
    expect(root.textContent).toContain('attempt 2 of 5');
    expect(root.querySelector('button[aria-label^="Retry this"]')).toBeNull();
  });

  it('resets a failing domain and cleans up done jobs', async () => {
    const { calls } = queueServer();
    const root = await render();
    const domains = () => [...root.querySelectorAll('section:nth-of-type(3) li strong')].map((s) => s.textContent);
    expect(domains()).toEqual(['dead.example', 'slow.example']);
    expect(root.querySelector('section:nth-of-type(3) .tag')!.textContent).toBe('skipped');
    await click(button(root, 'Reset the failures of dead.example'));
    expect(callsOf(calls, 'domains.reset_failure').map((c) => c.params)).toEqual([{ domain: 'dead.example' }]);
    expect(domains()).toEqual(['slow.example']);

    await click(button(root, 'Clean up'));
    await click(button(root.querySelector('[role=alertdialog]') as HTMLElement, 'Clean up'));
    expect(callsOf(calls, 'queue.vacuum')).toHaveLength(1);
    expect(root.querySelector('.notice')!.textContent).toBe('Cleaned up: 38 finished jobs deleted.');
  });

  it('calls queue.tick every 5 s while open and refreshes the list when its count changes', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { s, calls } = queueServer();
    const root = await render();
    const ticks = () => callsOf(calls, 'queue.tick').length;
    expect(ticks()).toBe(1);
    const lists = callsOf(calls, 'queue.list').length;
    await act(() => {
      vi.advanceTimersByTime(5000);
    });
    await settle();
    expect(ticks()).toBe(2);
    expect(callsOf(calls, 'queue.list')).toHaveLength(lists);
    // A job dies meanwhile: the next refresh sees the count change and reloads the page.
    s.dead = [job('j0'), ...s.dead];
    await act(() => {
      vi.advanceTimersByTime(5000);
    });
    await settle();
    expect(ticks()).toBe(3);
    expect(callsOf(calls, 'queue.list').length).toBe(lists + 1);
    expect(jobs(root)[0]).toContain('(j0)');
    unmount();
    await act(() => {
      vi.advanceTimersByTime(15000);
    });
    expect(ticks()).toBe(3);
  });

  it('shows load failures with a retry', async () => {
    let fail = true;
    stubRPC({
      'queue.tick': () => ({ status: 'ok' }),
      'queue.stats': () => (fail ? failure('network') : { pending: 0, scheduled: 0, running: 0, done: 0, dead: 0, topics: {} }),
      'queue.list': () => (fail ? failure('unavailable', 'database busy') : { items: [], next_cursor: null }),
      'domains.list_failures': () => ({ items: [], next_cursor: null }),
    });
    const root = await render();
    const alerts = root.querySelectorAll('[role=alert]');
    expect(alerts).toHaveLength(2);
    fail = false;
    for (const b of [...root.querySelectorAll('[role=alert] button')] as HTMLButtonElement[]) await click(b);
    expect(root.querySelectorAll('[role=alert]')).toHaveLength(0);
    expect(root.textContent).toContain('The queue is empty.');
    expect(root.textContent).toContain('No dead jobs');
    expect(root.textContent).toContain('No domain is failing.');
  });
});
