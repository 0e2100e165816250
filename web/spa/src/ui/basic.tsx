// Small shared components. Markup only: the look is in styles.css.
import { cloneElement, type ComponentChildren, type JSX, type VNode } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { siteName, useSite } from '../hooks';
import { getLang, t } from '../i18n';
import { Link } from '../router';
import { errorDetail, errorMessage, isLocked } from './errors';

export function Loading({ label }: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label ?? t('ui.loading')}
    </p>
  );
}

/**
 * An error as a translated sentence (+ the server's safe message), with a
 * retry button when given. A change refused by lockdown links to the
 * Controls screen, where lockdown is lifted.
 */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const detail = errorDetail(error);
  return (
    <div class="error-box" role="alert">
      <p>
        {errorMessage(error)}
        {isLocked(error) && (
          <>
            {' '}
            <Link href="/controls">{t('err.locked_link')}</Link>
          </>
        )}
      </p>
      {detail && <p class="detail">{t('err.detail', { message: detail })}</p>}
      {onRetry && (
        <button type="button" class="button" onClick={onRetry}>
          {t('ui.retry')}
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children?: ComponentChildren }) {
  return <p class="empty">{children ?? t('ui.empty')}</p>;
}

export interface FieldProps {
  label: ComponentChildren;
  /** The server's or the form's message about this field; marks the input invalid. */
  error?: string | null | undefined;
  hint?: ComponentChildren;
  /** Shown after the label, e.g. a length counter. */
  aside?: ComponentChildren;
  class?: string;
  /** One input/select/textarea element; it gets id, aria-describedby and aria-invalid. */
  children: VNode<any>;
}

/** A labelled control: the <label> is tied to the input by id, hint and error by aria-describedby. */
export function Field({ label, error, hint, aside, class: cls, children }: FieldProps) {
  const uid = useId();
  const id = (children.props.id as string | undefined) ?? 'f' + uid;
  const hintId = hint ? id + '-hint' : undefined;
  const errId = error ? id + '-error' : undefined;
  const describedBy = [children.props['aria-describedby'], hintId, errId].filter(Boolean).join(' ') || undefined;
  const input = cloneElement(children, {
    id,
    'aria-describedby': describedBy,
    'aria-invalid': error ? 'true' : undefined,
  });
  return (
    <div class={'field' + (error ? ' invalid' : '') + (cls ? ' ' + cls : '')}>
      <div class="field-head">
        <label for={id}>{label}</label>
        {aside}
      </div>
      {input}
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errId}>
          {t('ui.field_error', { message: error })}
        </p>
      )}
    </div>
  );
}

/** A checkbox with its label after it. */
export function Check({ label, checked, onChange, hint, disabled }: {
  label: ComponentChildren;
  checked: boolean;
  onChange: (v: boolean) => void;
  hint?: ComponentChildren;
  disabled?: boolean;
}) {
  const id = 'c' + useId();
  return (
    <div class="check">
      <input
        type="checkbox"
        id={id}
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? id + '-hint' : undefined}
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={id + '-hint'}>
          {hint}
        </p>
      )}
    </div>
  );
}

export type ButtonProps = JSX.ButtonHTMLAttributes<HTMLButtonElement> & {
  busy?: boolean;
  variant?: 'primary' | 'danger' | 'plain';
};

/** A button that is disabled and says so while its action runs. */
export function Button({ busy, variant, class: cls, disabled, children, type, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type ?? 'button'}
      class={['button', variant, cls].filter(Boolean).join(' ')}
      disabled={Boolean(disabled) || busy}
      aria-busy={busy ? 'true' : undefined}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

/** A form's submit button, and a cancel button when `onCancel` is given. */
export function FormActions({ label, variant = 'primary', busy, disabled, onCancel }: {
  label: string;
  variant?: 'primary' | 'danger';
  busy?: boolean;
  disabled?: boolean;
  onCancel?: () => void;
}) {
  return (
    <div class="actions">
      <Button type="submit" variant={variant} busy={busy} disabled={disabled}>
        {label}
      </Button>
      {onCancel && (
        <button type="button" class="button plain" onClick={onCancel}>
          {t('ui.cancel')}
        </button>
      )}
    </div>
  );
}

/**
 * Asks before a destructive action. Focus moves to the cancel button (the
 * safe choice), Escape cancels, and focus goes back where it was after.
 */
export function Confirm({ message, confirmLabel, onConfirm, onCancel, busy, danger = true }: {
  message: ComponentChildren;
  confirmLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  danger?: boolean;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const msgId = 'm' + useId();
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    cancelRef.current?.focus();
    return () => before?.focus?.();
  }, []);
  return (
    <div
      class="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-describedby={msgId}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <p id={msgId}>{message}</p>
      <div class="actions">
        <button type="button" class="button" ref={cancelRef} onClick={onCancel}>
          {t('ui.cancel')}
        </button>
        <Button variant={danger ? 'danger' : 'primary'} busy={busy} onClick={onConfirm}>
          {confirmLabel ?? t('ui.confirm')}
        </Button>
      </div>
    </div>
  );
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

// The formatters of the current language, made once: constructing an Intl
// formatter costs far more than formatting, and a list renders two per post
// (a timeline of 200 posts spent most of its rendering time making them).
let formats: { lang: string; relative: Intl.RelativeTimeFormat; full: Intl.DateTimeFormat } | null = null;

function formatters() {
  const lang = getLang();
  if (formats?.lang !== lang) {
    formats = {
      lang,
      relative: new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }),
      full: new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }),
    };
  }
  return formats;
}

/** "3 hours ago" / "in 2 days" in the current language; seconds away are "just now". */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const diff = (ms - now) / 1000;
  const fmt = formatters().relative;
  for (const [unit, secs] of UNITS) {
    if (Math.abs(diff) >= secs) return fmt.format(Math.round(diff / secs), unit);
  }
  return t('ui.just_now');
}

export function fullTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return formatters().full.format(ms);
}

/** A time as "3 hours ago", the full local date and time on hover and for machines. */
export function Time({ iso, absolute }: { iso: string; absolute?: boolean }) {
  return (
    <time dateTime={iso} title={fullTime(iso)}>
      {absolute ? fullTime(iso) : relativeTime(iso)}
    </time>
  );
}

/** A round picture, or the name's first letter when there is none or it fails to load. */
/** The letter a picture-less avatar shows: the name's first letter or digit
 * (a name that opens with markup or punctuation shows its first real letter). */
export function avatarLetter(name: string): string {
  return name.match(/[\p{L}\p{N}]/u)?.[0].toUpperCase() ?? '?';
}

export function Avatar({ src, name, size = 48 }: { src?: string | null; name: string; size?: 32 | 48 | 96 }) {
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [src]);
  if (!src || broken) {
    return (
      <span class={`avatar avatar-${size} avatar-letter`} aria-hidden="true">
        {avatarLetter(name)}
      </span>
    );
  }
  return <img class={`avatar avatar-${size}`} src={src} alt="" width={size} height={size} loading="lazy" onError={() => setBroken(true)} />;
}

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const id = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(id);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" class="button" onClick={copy}>
        {label ?? t('ui.copy')}
      </button>
      <span role="status" class="copy-status">
        {state === 'copied' ? t('ui.copied') : state === 'failed' ? t('ui.copy_failed') : ''}
      </span>
    </span>
  );
}

/**
 * A screen's frame: its <h1>, which also becomes the document title and
 * receives focus when the screen opens, so screen readers announce the change.
 */
export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const site = siteName(useSite().info);
  useEffect(() => {
    document.title = `${title} — ${site}`;
  }, [title, site]);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section class="page">
      <header class="page-head">
        <h1 tabIndex={-1} ref={ref}>
          {title}
        </h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
