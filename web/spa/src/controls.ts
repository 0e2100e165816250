// The site's kill switches and lockdown (docs/api.md "site.controls"), as the
// shell and the Controls screen share them: the shell reads them once the
// owner is known and shows a banner while lockdown is active; the Controls
// screen puts every answer of the server here, so the banner follows at once.
import { call } from './rpc';
import { createStore } from './store';

export const SWITCHES = ['comments', 'page_views', 'inbox', 'delivery', 'link_previews', 'service_worker'] as const;
export type SwitchName = (typeof SWITCHES)[number];

export interface Lockdown {
  on: boolean;
  from?: string;
  until?: string;
  reason?: string;
}

/** What site.controls.get and both setters answer. */
export interface Controls {
  switches: Record<SwitchName, boolean>;
  lockdown: Lockdown;
  lockdown_active: boolean;
}

/** The server's characters limit of lockdown.reason. */
export const MAX_REASON = 200;

/** The last controls the server answered; null until then (or when they cannot be read). */
export const controlsStore = createStore<Controls | null>(null);

/** Reads the controls into the store. A failure keeps what was known: the banner is a hint. */
export async function loadControls(): Promise<void> {
  try {
    controlsStore.set(await call<Controls>('site.controls.get', {}));
  } catch {
    // The Controls screen shows the error; the shell has nothing to say.
  }
}

export type LockdownStatus = 'off' | 'active' | 'scheduled' | 'expired';

/** Whether lockdown holds now, waits for its from, or is past its until (the server says whether it is active). */
export function lockdownStatus(c: Controls, now: number = Date.now()): LockdownStatus {
  if (c.lockdown_active) return 'active';
  if (!c.lockdown.on) return 'off';
  const until = c.lockdown.until ? Date.parse(c.lockdown.until) : NaN;
  if (!Number.isNaN(until) && until <= now) return 'expired';
  return 'scheduled';
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A datetime-local value ("2026-12-03T09:00", seconds optional), read in the
 * browser's time zone, as RFC 3339 with that zone's offset
 * ("2026-12-03T09:00:00+09:00"); undefined for an empty or unreadable value.
 */
export function localToRFC3339(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(value.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(date.getTime())) return undefined;
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const zone = `${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${zone}`
  );
}

/** An RFC 3339 time as a datetime-local value in the browser's time zone ("" when there is none). */
export function rfc3339ToLocal(iso: string | undefined): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
