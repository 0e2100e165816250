// Two-factor login (totp.*). Off → setup: the server's QR code (an SVG data
// URI, no QR library here) and the secret to type by hand → verify with a
// code → the 10 recovery codes, shown this once, until the owner confirms
// they are saved. On → how many recovery codes are left, and turning it off
// (password + a code).
import { useState } from 'preact/hooks';
import { useRPC, useSite } from '../../hooks';
import { t } from '../../i18n';
import { call, RPCError } from '../../rpc';
import { Button, Check, CopyButton, ErrorBox, Field, FormActions, Loading } from '../../ui/basic';
import { fieldError } from '../../ui/errors';

export interface TOTPStatus {
  enabled: boolean;
  pending: boolean;
  recovery_codes_left: number;
}

export interface TOTPSetup {
  secret: string;
  otpauth_uri: string;
  qr_svg: string;
}

/** "JBSWY3DPEHPK3PXP" → "JBSW Y3DP EHPK 3PXP", for reading and typing by hand. */
export function groupSecret(secret: string): string {
  return secret.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/** A code as typed: spaces removed; six digits, or a recovery code "xxxx-xxxx". */
export function normalizeCode(code: string): string {
  return code.replace(/\s+/g, '').toLowerCase();
}

/** Only a data: URI of an SVG image is shown as the QR code: it comes from our server, but an <img> is all it may be. */
export function isSvgDataURI(s: string): boolean {
  return s.startsWith('data:image/svg+xml;');
}

type Stage =
  | { kind: 'status' }
  | { kind: 'setup'; setup: TOTPSetup }
  | { kind: 'codes'; codes: string[] }
  | { kind: 'disable' };

function Enrol({ setup, onVerified, onCancel }: { setup: TOTPSetup; onVerified: (codes: string[]) => void; onCancel: () => void }) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [formatError, setFormatError] = useState<string | null>(null);
  const verify = async (e: Event) => {
    e.preventDefault();
    const c = normalizeCode(code);
    setFormatError(/^\d{6}$/.test(c) ? null : t('security.totp_code_format'));
    if (!/^\d{6}$/.test(c)) return;
    setBusy(true);
    setError(null);
    try {
      const r = await call<{ enabled: boolean; recovery_codes: string[] }>('totp.verify', { code: c });
      onVerified(r.recovery_codes);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const codeErr = formatError ?? (error instanceof RPCError && error.field === 'code' ? t('security.totp_code_wrong') : undefined);
  return (
    <div class="totp-setup">
      <ol class="steps">
        <li>
          <p>{t('security.totp_scan')}</p>
          {isSvgDataURI(setup.qr_svg) && <img class="qr" src={setup.qr_svg} alt={t('security.totp_qr_alt')} width={200} height={200} />}
        </li>
        <li>
          <p>{t('security.totp_manual')}</p>
          <p class="secret" aria-label={t('security.totp_secret')}>
            {groupSecret(setup.secret)}
          </p>
          <CopyButton text={setup.secret} label={t('security.totp_copy_secret')} />
          <p class="hint">
            <a href={setup.otpauth_uri}>{t('security.totp_open_app')}</a>
          </p>
        </li>
        <li>
          <form onSubmit={verify} noValidate>
            <Field label={t('security.totp_code')} error={codeErr} hint={t('security.totp_code_hint')}>
              <input type="text" inputMode="numeric" autocomplete="one-time-code" maxLength={8} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
            </Field>
            {error !== null && !codeErr && <ErrorBox error={error} />}
            <FormActions label={t('security.totp_verify')} busy={busy} onCancel={onCancel} />
          </form>
        </li>
      </ol>
    </div>
  );
}

export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [saved, setSaved] = useState(false);
  const text = codes.join('\n') + '\n';
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'murlog-recovery-codes.txt';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <div class="recovery" role="region" aria-labelledby="rc-h">
      <h3 id="rc-h">{t('security.rc_title')}</h3>
      <p class="warning">{t('security.rc_once')}</p>
      <ol class="codes mono">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ol>
      <div class="actions">
        <CopyButton text={text} label={t('security.rc_copy')} />
        <button type="button" class="button" onClick={download}>
          {t('security.rc_download')}
        </button>
      </div>
      <Check label={t('security.rc_saved')} checked={saved} onChange={setSaved} />
      <Button variant="primary" disabled={!saved} onClick={onDone}>
        {t('security.rc_done')}
      </Button>
    </div>
  );
}

function Disable({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call('totp.disable', { password, code: normalizeCode(code) });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const fields = new Set(['password', 'code']);
  const general = error instanceof RPCError && error.field && fields.has(error.field) ? null : error;
  return (
    <form onSubmit={submit} noValidate>
      <p>{t('security.totp_disable_intro')}</p>
      <Field label={t('security.totp_password')} error={fieldError(error, 'password')}>
        <input type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      </Field>
      <Field label={t('security.totp_code_or_recovery')} error={fieldError(error, 'code')}>
        <input type="text" autocomplete="one-time-code" maxLength={20} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
      </Field>
      {general !== null && <ErrorBox error={general} />}
      <FormActions label={t('security.totp_disable')} variant="danger" busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function TwoFactor() {
  const site = useSite();
  const [version, setVersion] = useState(0);
  const status = useRPC<TOTPStatus>('totp.status', {}, [version]);
  const [stage, setStage] = useState<Stage>({ kind: 'status' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [password, setPassword] = useState('');

  const refresh = () => {
    setStage({ kind: 'status' });
    setVersion((v) => v + 1);
    void site.reload();
  };
  // The server asks for the password before an enrolment starts, so a
  // session alone (a stolen one) cannot enrol another authenticator.
  const startSetup = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setStage({ kind: 'setup', setup: await call<TOTPSetup>('totp.setup', { password }) });
      setPassword('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  let body;
  if (stage.kind === 'setup') {
    body = <Enrol setup={stage.setup} onVerified={(codes) => setStage({ kind: 'codes', codes })} onCancel={refresh} />;
  } else if (stage.kind === 'codes') {
    body = <RecoveryCodes codes={stage.codes} onDone={refresh} />;
  } else if (status.loading && !status.data) {
    body = <Loading />;
  } else if (status.error || !status.data) {
    body = <ErrorBox error={status.error} onRetry={status.reload} />;
  } else if (stage.kind === 'disable') {
    body = <Disable onDone={refresh} onCancel={() => setStage({ kind: 'status' })} />;
  } else if (status.data.enabled) {
    const left = status.data.recovery_codes_left;
    body = (
      <>
        <p>
          <strong class="tag on">{t('security.totp_on')}</strong> {t('security.totp_left', { n: left })}
        </p>
        {left <= 3 && <p class="warning">{t('security.totp_few_left')}</p>}
        <Button variant="danger" onClick={() => setStage({ kind: 'disable' })}>
          {t('security.totp_disable')}
        </Button>
      </>
    );
  } else {
    body = (
      <>
        <p>
          <strong class="tag">{t('security.totp_off')}</strong> {t('security.totp_why')}
        </p>
        {status.data.pending && <p class="hint">{t('security.totp_pending')}</p>}
        <form onSubmit={startSetup} noValidate>
          <Field label={t('security.totp_password')} error={fieldError(error, 'password')}>
            <input type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </Field>
          {error !== null && !(error instanceof RPCError && error.field === 'password') && <ErrorBox error={error} />}
          <Button type="submit" variant="primary" busy={busy}>
            {status.data.pending ? t('security.totp_restart') : t('security.totp_setup')}
          </Button>
        </form>
      </>
    );
  }

  return (
    <section aria-labelledby="totp-h">
      <h2 id="totp-h">{t('security.totp_title')}</h2>
      {body}
    </section>
  );
}
