// Turns an RPCError (or anything thrown) into text for the owner: a translated
// sentence chosen by error.data.code, never a raw body or a stack trace.
import { t, type Key } from '../i18n';
import { RPCError } from '../rpc';

const KNOWN = new Set([
  'network', 'timeout', 'aborted', 'invalid', 'unauthorized', 'not_found', 'conflict',
  'forbidden', 'rate_limited', 'unavailable', 'internal', 'bad_response', 'chunk', 'locked',
]);

/** Whether `err` is a change refused because the owner's lockdown is active. */
export function isLocked(err: unknown): boolean {
  return err instanceof RPCError && err.dataCode === 'locked';
}

export function errorMessage(err: unknown): string {
  if (!(err instanceof RPCError)) return t('err.unknown');
  if (err.dataCode === 'rate_limited') {
    return err.retryAfter ? t('err.rate_limited', { seconds: Math.ceil(err.retryAfter) }) : t('err.rate_limited_later');
  }
  return KNOWN.has(err.dataCode) ? t(('err.' + err.dataCode) as Key) : t('err.unknown');
}

// The server's message is a safe one-line sentence (docs/api.md: internal
// detail is only logged) and, for invalid/conflict/forbidden, says exactly
// what is wrong ("new_password: must be at least 8 characters"). It is shown
// as text, under the translated sentence.
const DETAILED = new Set(['invalid', 'conflict', 'forbidden', 'unavailable', 'not_found']);

export function errorDetail(err: unknown): string | null {
  if (!(err instanceof RPCError) || !DETAILED.has(err.dataCode)) return null;
  const m = err.message.trim();
  if (m === '' || m.length > 300 || m.includes('\n')) return null;
  return m;
}

/**
 * The server's message when the error names this field (data.field), for
 * showing next to the input. Field names are the params' names, e.g.
 * "current_password" or "publication.site_name".
 */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof RPCError) || err.field !== field) return undefined;
  return errorDetail(err) ?? errorMessage(err);
}
