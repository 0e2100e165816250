// Where a refused setting's message goes. The server names the refused
// parameter by its place in the params — "display_name", "fields",
// "publication.site_name", "publication.extensions.shareButtons[2]" — and
// the forms show the message next to the control that edits that place.
import { RPCError } from '../rpc';
import { errorDetail, errorMessage } from '../ui/errors';

/** Whether the server's field path `field` is `prefix` itself or lies inside it. */
export function within(field: string, prefix: string): boolean {
  return field === prefix || field.startsWith(prefix + '.') || field.startsWith(prefix + '[');
}

/**
 * The control (named by the param path it edits) that shows an error about
 * `field`: the one with the longest path containing it, so that
 * "publication.extensions.comments.mode" lands on the comment mode and
 * "publication.extensions" on the extensions as a whole. Null when no
 * control edits it; the form then shows the error above its buttons.
 */
export function controlFor(field: string | undefined, controls: readonly string[]): string | null {
  if (!field) return null;
  let best: string | null = null;
  for (const c of controls) if (within(field, c) && (best === null || c.length > best.length)) best = c;
  return best;
}

/**
 * The server's message for showing next to its control. An invalid
 * param's message starts with the path ("publication.subtitle: must be at
 * most 50 characters"), which the control's label already says.
 */
export function fieldMessage(err: unknown): string {
  const detail = errorDetail(err);
  if (!detail) return errorMessage(err);
  const field = err instanceof RPCError ? err.field : undefined;
  return field && detail.startsWith(field + ': ') ? detail.slice(field.length + 2) : detail;
}

/** A refused save split into the control that shows it and the form-level remainder. */
export interface Placed {
  /** The message for `control`, undefined for every other one. */
  at: (control: string) => string | undefined;
  /** The error when no control shows it (not `invalid`, or a field no control edits). */
  unplaced: unknown;
  /** An error is shown at a control. */
  placed: boolean;
}

export function placeError(err: unknown, controls: readonly string[]): Placed {
  const field = err instanceof RPCError && err.dataCode === 'invalid' ? err.field : undefined;
  const control = controlFor(field, controls);
  if (control === null) return { at: () => undefined, unplaced: err, placed: false };
  const message = fieldMessage(err);
  return { at: (c) => (c === control ? message : undefined), unplaced: null, placed: true };
}

/** Code points, as the server counts characters (not UTF-16 units). */
export function chars(s: string): number {
  return Array.from(s).length;
}
