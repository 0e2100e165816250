// The queue screen's model (docs/api.md "queue", "domains"): the counts of
// queue.stats as rows, one page of queue.list at a time (a stack of cursors
// for going back, so the DOM holds one page however many dead letters
// there are), and the local updates after retry / dismiss / reset.
import type { Page } from '../rpc';

export const STATES = ['pending', 'scheduled', 'running', 'done', 'dead'] as const;
export type JobState = (typeof STATES)[number];
export const PAGE_SIZE = 20;

export interface Stats {
  pending: number;
  scheduled: number;
  running: number;
  done: number;
  dead: number;
  topics: Record<string, Partial<Record<JobState, number>>>;
}

export interface Job {
  id: string;
  topic: string;
  state: JobState;
  priority: number;
  attempt: number;
  max_attempts: number;
  last_error: string;
  run_at: string;
  enqueued_at: string;
  started_at: string | null;
  finished_at: string | null;
  dead_topic?: string;
}

export interface DomainFailure {
  domain: string;
  failure_count: number;
  first_failure_at: string;
  last_failure_at: string;
  last_error: string;
  dead: boolean;
}

export interface TopicRow {
  topic: string;
  counts: Record<JobState, number>;
}

/** One row per topic, those with dead letters first, then by name. */
export function topicRows(stats: Stats): TopicRow[] {
  const rows = Object.entries(stats.topics ?? {}).map(([topic, c]) => ({
    topic,
    counts: Object.fromEntries(STATES.map((s) => [s, c[s] ?? 0])) as Record<JobState, number>,
  }));
  return rows.sort((a, b) => b.counts.dead - a.counts.dead || a.topic.localeCompare(b.topic));
}

/** How many jobs a filter matches, by the stats: a change means the listed page is out of date. */
export function countFor(stats: Stats, state: JobState, topic: string): number {
  if (!topic) return stats[state] ?? 0;
  return stats.topics?.[topic]?.[state] ?? 0;
}

export interface JobPager {
  /** The cursors of the pages before this one and of this one (null: the first). */
  cursors: (string | null)[];
  items: Job[];
  next: string | null;
}

export const firstPage: JobPager = { cursors: [null], items: [], next: null };

export function listParams(state: JobState, topic: string, cursor: string | null): Record<string, unknown> {
  const p: Record<string, unknown> = { state, limit: PAGE_SIZE };
  if (topic) p.topic = topic;
  if (cursor) p.cursor = cursor;
  return p;
}

/** The pager showing `page`, loaded with the cursor at the top of `cursors`. */
export function showPage(cursors: (string | null)[], page: Page<Job>): JobPager {
  return { cursors, items: page.items, next: page.next_cursor };
}

/** The cursors to load the next page with, or null at the end. */
export function nextCursors(p: JobPager): (string | null)[] | null {
  return p.next ? [...p.cursors, p.next] : null;
}

/** The cursors to load the previous page with, or null on the first. */
export function prevCursors(p: JobPager): (string | null)[] | null {
  return p.cursors.length > 1 ? p.cursors.slice(0, -1) : null;
}

/** The page without a job that was retried or dismissed (it is no longer dead). */
export function withoutJob(p: JobPager, id: string): JobPager {
  return { ...p, items: p.items.filter((j) => j.id !== id) };
}

/** The stats after a dead job left its state (retry: pending again; dismiss: gone). */
export function statsAfter(stats: Stats, job: Job, to: JobState | null): Stats {
  const out: Stats = { ...stats, topics: { ...stats.topics } };
  const topic = { ...(out.topics[job.topic] ?? {}) };
  out[job.state] = Math.max(0, out[job.state] - 1);
  topic[job.state] = Math.max(0, (topic[job.state] ?? 0) - 1);
  if (to) {
    out[to] += 1;
    topic[to] = (topic[to] ?? 0) + 1;
  }
  out.topics[job.topic] = topic;
  return out;
}

export function withoutDomain(list: DomainFailure[], domain: string): DomainFailure[] {
  return list.filter((d) => d.domain !== domain);
}
