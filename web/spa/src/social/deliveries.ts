// Where one of the owner's posts went (posts.deliveries): the inboxes by
// state, failures first since they are what the owner may act on.
import type { Deliveries, Delivery, DeliveryState } from './types';

export const STATES: readonly DeliveryState[] = ['failed', 'pending', 'delivered', 'skipped'];

export type Grouped = Record<DeliveryState, Delivery[]>;

/** The loaded inboxes by state, in STATES order; an unknown state counts as pending. */
export function groupDeliveries(inboxes: readonly Delivery[]): Grouped {
  const out: Grouped = { failed: [], pending: [], delivered: [], skipped: [] };
  for (const d of inboxes) (out[d.state] ?? out.pending).push(d);
  return out;
}

/** The server's counts (over every inbox, not just the loaded page). */
export function counts(d: Pick<Deliveries, DeliveryState>): Record<DeliveryState, number> & { total: number } {
  return { failed: d.failed, pending: d.pending, delivered: d.delivered, skipped: d.skipped, total: d.failed + d.pending + d.delivered + d.skipped };
}

/**
 * A refreshed first page over what was loaded: fresh rows replace the old
 * ones of the same inbox, rows beyond the refreshed page are kept, and the
 * whole stays in inbox order as the server pages it.
 */
export function mergeInboxes(old: readonly Delivery[], fresh: readonly Delivery[]): Delivery[] {
  const m = new Map<string, Delivery>();
  for (const d of old) m.set(d.inbox, d);
  for (const d of fresh) m.set(d.inbox, d);
  return [...m.values()].sort((a, b) => (a.inbox < b.inbox ? -1 : a.inbox > b.inbox ? 1 : 0));
}
