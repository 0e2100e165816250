// auth.change_password: the current password, a new one (≥ 8 characters,
// typed twice), and whether to revoke every API token too. Every other
// session ends either way (docs/api.md).
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { call, RPCError } from '../../rpc';
import { Button, Check, ErrorBox, Field } from '../../ui/basic';
import { fieldError } from '../../ui/errors';

export const MIN_PASSWORD = 8;

/** The form's own checks before anything is sent; keys are the params' names. */
export function passwordProblems(current: string, next: string, again: string): Record<string, string> {
  const p: Record<string, string> = {};
  if (current === '') p.current_password = t('security.pw_current_required');
  if ([...next].length < MIN_PASSWORD) p.new_password = t('security.pw_too_short', { n: MIN_PASSWORD });
  else if (next !== again) p.again = t('security.pw_mismatch');
  return p;
}

export function PasswordForm({ onChanged }: { onChanged?: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [revoke, setRevoke] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<number | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const p = passwordProblems(current, next, again);
    setProblems(p);
    setDone(null);
    setError(null);
    if (Object.keys(p).length) return;
    setBusy(true);
    try {
      const r = await call<{ tokens_revoked: number }>('auth.change_password', {
        current_password: current,
        new_password: next,
        revoke_tokens: revoke,
      });
      setCurrent('');
      setNext('');
      setAgain('');
      setDone(r.tokens_revoked ?? 0);
      onChanged?.();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const fe = (f: string) => problems[f] ?? fieldError(error, f);
  const general = error instanceof RPCError && (error.field === 'current_password' || error.field === 'new_password') ? null : error;

  return (
    <form onSubmit={submit} noValidate aria-labelledby="pw-h">
      <h2 id="pw-h">{t('security.pw_title')}</h2>
      <Field label={t('security.pw_current')} error={fe('current_password')}>
        <input type="password" autocomplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
      </Field>
      <Field label={t('security.pw_new')} error={fe('new_password')} hint={t('security.pw_hint', { n: MIN_PASSWORD })}>
        <input type="password" autocomplete="new-password" value={next} onInput={(e) => setNext(e.currentTarget.value)} />
      </Field>
      <Field label={t('security.pw_again')} error={fe('again')}>
        <input type="password" autocomplete="new-password" value={again} onInput={(e) => setAgain(e.currentTarget.value)} />
      </Field>
      <Check label={t('security.pw_revoke')} hint={t('security.pw_revoke_hint')} checked={revoke} onChange={setRevoke} />
      {general !== null && <ErrorBox error={general} />}
      {done !== null && (
        <p class="ok" role="status">
          {t('security.pw_done', { n: done })}
        </p>
      )}
      <Button type="submit" variant="primary" busy={busy}>
        {t('security.pw_submit')}
      </Button>
    </form>
  );
}
