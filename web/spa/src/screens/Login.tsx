// Login: the password, then — when two-factor login is on — a code from the
// authenticator app or a recovery code. The password stays in this
// component's memory between the two steps and nowhere else. On success the
// shell reads site.info again and returns to the route in ?next=.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useSite } from '../hooks';
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { call, RPCError } from '../rpc';
import { Button, ErrorBox, Field, Page } from '../ui/basic';

export type LoginStep = 'password' | 'totp';

export interface LoginOutcome {
  step: LoginStep;
  /** A message for the password or code field, or null. */
  fieldError: string | null;
  /** An error shown above the form (rate limit, server down…), or null. */
  error: RPCError | null;
  done: boolean;
}

/**
 * What an auth.login answer means for the form. `sentCode` tells whether
 * the call carried a two-factor code: the server answers `unauthorized` with
 * field "totp_code" both when one is needed and when it was wrong or reused.
 */
export function loginOutcome(step: LoginStep, sentCode: boolean, err: unknown): LoginOutcome {
  if (err === null) return { step, fieldError: null, error: null, done: true };
  if (!(err instanceof RPCError)) return { step, fieldError: null, error: new RPCError(0, '', 'unknown'), done: false };
  if (err.dataCode === 'unauthorized' && err.field === 'totp_code') {
    return { step: 'totp', fieldError: sentCode ? t('login.code_wrong') : null, error: null, done: false };
  }
  if (err.dataCode === 'invalid' && err.field === 'totp_code') return { step: 'totp', fieldError: t('login.code_format'), error: null, done: false };
  if (err.dataCode === 'unauthorized') return { step: 'password', fieldError: t('login.wrong_password'), error: null, done: false };
  if (err.dataCode === 'invalid' && err.field === 'password') return { step: 'password', fieldError: t('login.password_required'), error: null, done: false };
  return { step, fieldError: null, error: err, done: false };
}

/** Seconds left of a rate-limit lock, ticking down once a second; `onDone` when it reaches 0. */
function useCountdown(seconds: number | undefined, onDone: () => void): number {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (!seconds) return;
    const until = Date.now() + seconds * 1000;
    setLeft(Math.ceil(seconds));
    const id = setInterval(() => {
      const s = Math.ceil((until - Date.now()) / 1000);
      setLeft(Math.max(0, s));
      if (s <= 0) {
        clearInterval(id);
        onDone();
      }
    }, 1000);
    return () => clearInterval(id);
  }, [seconds]);
  return left;
}

export default function Login(_props: ScreenProps) {
  const site = useSite();
  const [step, setStep] = useState<LoginStep>('password');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<RPCError | null>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const locked = useCountdown(error?.dataCode === 'rate_limited' ? error.retryAfter : undefined, () => setError(null));

  useEffect(() => {
    (step === 'totp' ? codeRef : passwordRef).current?.focus();
  }, [step]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || locked > 0) return;
    const sentCode = step === 'totp' && code.trim() !== '';
    if (step === 'totp' && !sentCode) {
      setFieldError(t('login.code_required'));
      return;
    }
    setBusy(true);
    setError(null);
    let err: unknown = null;
    try {
      await call('auth.login', sentCode ? { password, totp_code: code.trim() } : { password });
    } catch (x) {
      err = x;
    }
    const o = loginOutcome(step, sentCode, err);
    setBusy(false);
    setStep(o.step);
    setFieldError(o.fieldError);
    setError(o.error);
    if (o.step === 'password' && step === 'totp') setCode('');
    if (o.done) {
      setPassword('');
      setCode('');
      await site.reload(); // the shell then goes back to ?next=
    }
  };

  const back = () => {
    setStep('password');
    setCode('');
    setFieldError(null);
    setError(null);
  };

  return (
    <Page title={t('login.title')}>
      <form class="card narrow" onSubmit={submit} noValidate>
        {step === 'password' ? (
          <Field label={t('login.password')} error={fieldError}>
            <input
              ref={passwordRef}
              type="password"
              name="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </Field>
        ) : (
          <>
            <p>{t('login.totp_intro')}</p>
            <Field label={t('login.code')} error={fieldError} hint={t('login.code_hint')}>
              <input
                ref={codeRef}
                type="text"
                name="totp_code"
                inputMode="text"
                autocomplete="one-time-code"
                autocapitalize="off"
                spellcheck={false}
                maxLength={20}
                required
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
            </Field>
          </>
        )}
        {error && (error.dataCode === 'rate_limited' && locked > 0 ? (
          <div class="error-box" role="alert">
            <p>{t('err.rate_limited', { seconds: locked })}</p>
          </div>
        ) : (
          <ErrorBox error={error} />
        ))}
        <div class="actions">
          <Button type="submit" variant="primary" busy={busy} disabled={locked > 0}>
            {step === 'password' ? t('login.submit') : t('login.verify')}
          </Button>
          {step === 'totp' && (
            <button type="button" class="button plain" onClick={back}>
              {t('login.back')}
            </button>
          )}
        </div>
      </form>
    </Page>
  );
}
