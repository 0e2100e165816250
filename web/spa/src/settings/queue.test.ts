import { describe, expect, it } from 'vitest';
import { countFor, firstPage, listParams, nextCursors, prevCursors, showPage, statsAfter, topicRows, withoutDomain, withoutJob, type Job, type Stats } from './queue';

const stats: Stats = {
  pending: 1, scheduled: 2, running: 0, done: 10, dead: 3,
  topics: { 'ap.deliver': { dead: 2, scheduled: 2, done: 4 }, 'posts.publish': { pending: 1, done: 6 }, 'zz.cleanup': { dead: 1 } },
};
const job = (id: string, topic = 'ap.deliver'): Job => ({
  id, topic, state: 'dead', priority: 0, attempt: 5, max_attempts: 5, last_error: 'HTTP 500', run_at: '', enqueued_at: '', started_at: null, finished_at: null,
});

describe('queue stats', () => {
  it('become one row per topic with every state, dead ones first', () => {
    const rows = topicRows(stats);
    expect(rows.map((r) => r.topic)).toEqual(['ap.deliver', 'zz.cleanup', 'posts.publish']);
    expect(rows[2]!.counts).toEqual({ pending: 1, scheduled: 0, running: 0, done: 6, dead: 0 });
    expect(topicRows({ ...stats, topics: {} })).toEqual([]);
  });

  it('count a filter, and follow a retry or a dismiss', () => {
    expect(countFor(stats, 'dead', '')).toBe(3);
    expect(countFor(stats, 'dead', 'ap.deliver')).toBe(2);
    expect(countFor(stats, 'running', 'nosuch')).toBe(0);
    const retried = statsAfter(stats, job('1'), 'pending');
    expect([retried.dead, retried.pending, retried.topics['ap.deliver']!.dead, retried.topics['ap.deliver']!.pending]).toEqual([2, 2, 1, 1]);
    const dismissed = statsAfter(stats, job('1', 'zz.cleanup'), null);
    expect([dismissed.dead, dismissed.pending, dismissed.topics['zz.cleanup']!.dead]).toEqual([2, 1, 0]);
    expect(stats.dead).toBe(3);
  });
});

describe('job pages', () => {
  it('ask queue.list for one state, topic and cursor', () => {
    expect(listParams('dead', '', null)).toEqual({ state: 'dead', limit: 20 });
    expect(listParams('scheduled', 'ap.deliver', 'c1')).toEqual({ state: 'scheduled', topic: 'ap.deliver', cursor: 'c1', limit: 20 });
  });

  it('go forward by next_cursor and back by the cursors before', () => {
    const p1 = showPage(firstPage.cursors, { items: [job('1'), job('2')], next_cursor: 'c2' });
    expect(prevCursors(p1)).toBeNull();
    expect(nextCursors(p1)).toEqual([null, 'c2']);
    const p2 = showPage(nextCursors(p1)!, { items: [job('3')], next_cursor: null });
    expect(nextCursors(p2)).toBeNull();
    expect(prevCursors(p2)).toEqual([null]);
  });

  it('drop a retried or dismissed job and a reset domain', () => {
    const p = showPage([null], { items: [job('1'), job('2'), job('3')], next_cursor: null });
    expect(withoutJob(p, '2').items.map((j) => j.id)).toEqual(['1', '3']);
    expect(p.items).toHaveLength(3);
    const d = (domain: string) => ({ domain, failure_count: 1, first_failure_at: '', last_failure_at: '', last_error: '', dead: false });
    expect(withoutDomain([d('a.example'), d('b.example')], 'a.example').map((x) => x.domain)).toEqual(['b.example']);
  });
});
