// "@user@host" → an actor: the handle is checked here first (a malformed
// one is never sent), then actors.lookup fetches the account by WebFinger;
// what went wrong is said next to the field, naming the remote server.
import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { call, RPCError } from '../rpc';
import { Button, Field } from '../ui/basic';
import { errorDetail, errorMessage } from '../ui/errors';
import { parseHandle } from './handle';
import type { Actor } from './types';

function hostOf(q: string): string {
  if (/^https?:\/\//i.test(q)) {
    try {
      return new URL(q).host;
    } catch {
      return q;
    }
  }
  return q.slice(q.lastIndexOf('@') + 1);
}

/** The sentence for a failed lookup of q (a checked handle or URL), with the server's reason. */
export function lookupError(err: unknown, q: string): string {
  const host = hostOf(q);
  let s: string;
  if (!(err instanceof RPCError)) s = errorMessage(err);
  else if (err.dataCode === 'unavailable') s = t('follows.unreachable', { host });
  else if (err.dataCode === 'not_found') s = t('follows.no_account', { host });
  else if (err.dataCode === 'invalid') s = t('follows.handle_invalid');
  else s = errorMessage(err);
  const detail = errorDetail(err);
  return detail ? `${s} ${t('err.detail', { message: detail })}` : s;
}

export function handleError(reason: 'empty' | 'format'): string {
  return reason === 'empty' ? t('follows.handle_empty') : t('follows.handle_invalid');
}

export interface HandleFormProps {
  label: string;
  submit: string;
  /** Does the work with the looked-up actor; a thrown error is shown by `describe`. */
  onActor: (a: Actor) => Promise<void>;
  describe?: (err: unknown, a: Actor) => string;
  hint?: string;
}

export function HandleForm({ label, submit, onActor, describe, hint }: HandleFormProps) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const go = async (e: Event) => {
    e.preventDefault();
    const h = parseHandle(value);
    if (!h.ok) {
      setError(handleError(h.reason));
      return;
    }
    setBusy(true);
    setError(null);
    let actor: Actor;
    try {
      actor = await call<Actor>('actors.lookup', { q: h.q });
    } catch (err) {
      setError(lookupError(err, h.q));
      setBusy(false);
      return;
    }
    try {
      await onActor(actor);
      setValue('');
    } catch (err) {
      setError(describe ? describe(err, actor) : errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="handle-form card" onSubmit={go} noValidate>
      <Field label={label} error={error} hint={hint ?? t('follows.handle_hint')}>
        <input
          type="text"
          inputMode="email"
          autoComplete="off"
          autoCapitalize="none"
          spellcheck={false}
          placeholder="@user@example.social"
          value={value}
          onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
        />
      </Field>
      <div class="actions">
        <Button type="submit" variant="primary" busy={busy}>
          {submit}
        </Button>
      </div>
    </form>
  );
}
