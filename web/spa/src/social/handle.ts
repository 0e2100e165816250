// What the owner types to name a remote account or server, checked before
// anything is sent, and the URLs from remote data that may become links.

export type HandleResult = { ok: true; q: string } | { ok: false; reason: 'empty' | 'format' };

// A user part as Mastodon, Misskey and GoToSocial allow it (letters,
// digits, _ . -), a host name or IPv4 address with an optional port, or an
// IPv6 address in brackets.
const USER = /^[\p{L}\p{N}_.-]{1,64}$/u;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Checks a domain as domain_blocks.create takes it: host[:port], no scheme or path. */
export function validHost(s: string): boolean {
  const h = s.trim();
  if (h.length > 255 || !HOST.test(h)) return false;
  const port = /:(\d+)$/.exec(h.replace(/^\[[^\]]*\]/, ''));
  return !port || (Number(port[1]) > 0 && Number(port[1]) < 65536);
}

/**
 * Reads "@user@host" (or "user@host", or an actor's https URL) into what
 * actors.lookup takes; anything else is refused here, with the reason.
 */
export function parseHandle(input: string): HandleResult {
  const s = input.trim();
  if (s === '') return { ok: false, reason: 'empty' };
  if (/^https?:\/\//i.test(s)) {
    try {
      const u = new URL(s);
      return u.hostname ? { ok: true, q: u.href } : { ok: false, reason: 'format' };
    } catch {
      return { ok: false, reason: 'format' };
    }
  }
  const parts = s.replace(/^@/, '').split('@');
  if (parts.length !== 2) return { ok: false, reason: 'format' };
  const [user, host] = parts as [string, string];
  if (!USER.test(user) || !validHost(host)) return { ok: false, reason: 'format' };
  return { ok: true, q: `@${user}@${host.toLowerCase()}` };
}

/** A remote URL fit for href/src: http(s) only (no javascript:, data: …), else null. */
export function webURL(s: string | null | undefined): string | null {
  if (!s) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** "@user@host" for an actor's acct (the server gives "user@host"). */
export function atAcct(acct: string): string {
  return acct.startsWith('@') ? acct : '@' + acct;
}
