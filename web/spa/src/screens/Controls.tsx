// Controls: the site's kill switches and lockdown (docs/api.md
// "site.controls"). A switch is saved alone as soon as it is flipped, and
// what the screen then shows is the server's answer, never the click. The
// lockdown form saves on/from/until/reason together; its times are typed in
// the browser's time zone and sent as RFC 3339. Every answer also goes to
// the shell's store, so its lockdown banner follows at once. The public
// site's section (docs/api.md "site.artifacts") shows how many pages wait to
// be rendered again and can ask for every page to be rendered again.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  controlsStore,
  localToRFC3339,
  lockdownStatus,
  MAX_REASON,
  rfc3339ToLocal,
  SWITCHES,
  type Controls as ControlsState,
  type Lockdown,
  type SwitchName,
} from '../controls';
import { usePoll, useRPC } from '../hooks';
import { t, type Key } from '../i18n';
import type { ScreenProps } from '../router';
import { call } from '../rpc';
import { Counter } from '../settings/Counter';
import { chars, placeError } from '../settings/errors';
import { useSave } from '../settings/useSave';
import '../settings/controls.css';
import { Button, Check, ErrorBox, Field, fullTime, Loading, Page } from '../ui/basic';

const LABELS: Record<SwitchName, Key> = {
  comments: 'controls.comments',
  page_views: 'controls.page_views',
  inbox: 'controls.inbox',
  delivery: 'controls.delivery',
  link_previews: 'controls.link_previews',
  service_worker: 'controls.service_worker',
};
const HINTS: Record<SwitchName, Key> = {
  comments: 'controls.comments_hint',
  page_views: 'controls.page_views_hint',
  inbox: 'controls.inbox_hint',
  delivery: 'controls.delivery_hint',
  link_previews: 'controls.link_previews_hint',
  service_worker: 'controls.service_worker_hint',
};

/** The lockdown params the server names in data.field. */
const LOCKDOWN_FIELDS = ['on', 'from', 'until', 'reason'] as const;

/** One switch: flipping it sends only it, and the line under it says what the server answered. */
function SwitchRow({ name, value, onAnswer }: { name: SwitchName; value: boolean; onAnswer: (c: ControlsState) => void }) {
  const save = useSave<ControlsState>();
  const label = t(LABELS[name]);
  const toggle = (v: boolean) => void save.run(() => call<ControlsState>('site.controls.set_switches', { [name]: v }), onAnswer);
  return (
    <div class={'control-switch switch-' + name}>
      <Check label={label} hint={t(HINTS[name])} checked={value} disabled={save.busy} onChange={toggle} />
      <p class="muted" role="status">
        {save.busy ? t('controls.switch_saving') : save.done ? t(value ? 'controls.switch_on' : 'controls.switch_off', { name: label }) : ''}
      </p>
      {save.error !== null && <ErrorBox error={save.error} />}
    </div>
  );
}

interface LockdownForm {
  on: boolean;
  from: string;
  until: string;
  reason: string;
}

const formOf = (l: Lockdown): LockdownForm => ({
  on: l.on,
  from: rfc3339ToLocal(l.from),
  until: rfc3339ToLocal(l.until),
  reason: l.reason ?? '',
});

/** What lockdown is doing now, from the server's lockdown_active and its times, in local time. */
function LockdownStatusLine({ controls }: { controls: ControlsState }) {
  const l = controls.lockdown;
  const status = lockdownStatus(controls);
  let text: string;
  if (status === 'active') {
    text = l.until ? t('controls.status_active_until', { time: fullTime(l.until) }) : t('controls.status_active');
  } else if (status === 'scheduled') {
    text = l.from ? t('controls.status_scheduled', { time: fullTime(l.from) }) : t('controls.status_waiting');
  } else if (status === 'expired') {
    text = t('controls.status_expired', { time: fullTime(l.until!) });
  } else {
    text = t('controls.status_off');
  }
  return (
    <p class={'lockdown-status ' + status} role="status">
      <strong>{text}</strong>
    </p>
  );
}

function LockdownSection({ controls, onAnswer }: { controls: ControlsState; onAnswer: (c: ControlsState) => void }) {
  const [form, setForm] = useState<LockdownForm>(() => formOf(controls.lockdown));
  const save = useSave<ControlsState>();
  const placed = placeError(save.error, LOCKDOWN_FIELDS);

  useEffect(() => {
    if (save.error) (document.querySelector('.lockdown-form [aria-invalid="true"], .lockdown-form .field-error[tabindex]') as HTMLElement | null)?.focus();
  }, [save.error]);

  const edit = (change: Partial<LockdownForm>) => {
    setForm({ ...form, ...change });
    save.edited();
  };
  const reason = form.reason.trim();
  const from = localToRFC3339(form.from);
  const until = localToRFC3339(form.until);
  const problems: Partial<Record<'from' | 'until' | 'reason', string>> = {};
  if (form.from.trim() !== '' && !from) problems.from = t('controls.time_invalid');
  if (form.until.trim() !== '' && !until) problems.until = t('controls.time_invalid');
  if (chars(reason) > MAX_REASON) problems.reason = t('controls.too_long', { max: MAX_REASON });
  const blocked = Object.keys(problems).length > 0;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const submit = (e: Event) => {
    e.preventDefault();
    if (blocked) return;
    const params: { on: boolean; from?: string; until?: string; reason?: string } = { on: form.on };
    if (from) params.from = from;
    if (until) params.until = until;
    if (reason) params.reason = reason;
    void save.run(
      () => call<ControlsState>('site.controls.set_lockdown', params),
      (next) => {
        onAnswer(next);
        setForm(formOf(next.lockdown));
      },
    );
  };

  return (
    <form class="lockdown-form" onSubmit={submit} noValidate>
      <h2>{t('controls.lockdown')}</h2>
      <p class="hint">{t('controls.lockdown_hint')}</p>
      <LockdownStatusLine controls={controls} />
      <Check label={t('controls.on')} hint={t('controls.on_hint')} checked={form.on} onChange={(v) => edit({ on: v })} />
      {placed.at('on') && (
        <p class="field-error" tabIndex={-1}>
          {t('ui.field_error', { message: placed.at('on')! })}
        </p>
      )}
      <Field label={t('controls.from')} hint={t('controls.from_hint', { zone })} error={problems.from ?? placed.at('from')}>
        <input type="datetime-local" value={form.from} onInput={(e) => edit({ from: e.currentTarget.value })} />
      </Field>
      <Field label={t('controls.until')} hint={t('controls.until_hint', { zone })} error={problems.until ?? placed.at('until')}>
        <input type="datetime-local" value={form.until} onInput={(e) => edit({ until: e.currentTarget.value })} />
      </Field>
      <Field
        label={t('controls.reason')}
        hint={t('controls.reason_hint')}
        error={problems.reason ?? placed.at('reason')}
        aside={<Counter value={reason} max={MAX_REASON} />}
      >
        <input type="text" value={form.reason} onInput={(e) => edit({ reason: e.currentTarget.value })} />
      </Field>
      {placed.unplaced !== null && <ErrorBox error={placed.unplaced} />}
      <div class="actions">
        <Button type="submit" variant="primary" busy={save.busy} disabled={blocked}>
          {t('controls.save')}
        </Button>
        <span role="status">{save.done ? t('controls.saved') : placed.placed ? t('controls.not_saved') : blocked ? t('controls.fix_first') : ''}</span>
      </div>
    </form>
  );
}

/** site.artifacts.status's answer, and site.artifacts.rebuild's. */
interface ArtifactsStatus {
  pending: number;
  rebuilding: boolean;
}

/** How often the public site's section asks for the rebuild's progress while it runs. */
export const ARTIFACTS_POLL_MS = 2000;

/**
 * The public site: whether its rendered pages are up to date, asked every
 * 2 s while a rebuild runs (a theme change renders every page again in the
 * background), and a button that renders every page again.
 */
function SiteSection() {
  const [status, setStatus] = useState<ArtifactsStatus | null>(null);
  const [error, setError] = useState<unknown>(null);
  const save = useSave<ArtifactsStatus>();
  // A status call still out when the screen goes away is aborted, its answer dropped.
  const [gone] = useState(() => new AbortController());
  useEffect(() => () => gone.abort(), []);
  // Answers can cross: a poll sent before the rebuild may answer after it
  // with the count from before. Only an answer to a later call than the one
  // shown replaces it, so a stale 0 never stops the polling.
  const sent = useRef(0);
  const shown = useRef(0);
  const show = (n: number, s: ArtifactsStatus | null, err: unknown) => {
    if (n < shown.current) return;
    shown.current = n;
    if (s) setStatus(s);
    setError(err);
  };

  const ask = async () => {
    const n = ++sent.current;
    try {
      show(n, await call<ArtifactsStatus>('site.artifacts.status', {}, { signal: gone.signal }), null);
    } catch (err) {
      if (!gone.signal.aborted) show(n, null, err);
    }
  };
  // The first answer is asked at once; then only a running rebuild is
  // followed, and a failed first answer waits for Retry.
  usePoll(ask, ARTIFACTS_POLL_MS, status === null ? error === null : status.rebuilding);

  const rebuild = () => {
    const n = ++sent.current;
    void save.run(() => call<ArtifactsStatus>('site.artifacts.rebuild', {}), (s) => show(n, s, null));
  };

  let text: string;
  if (!status) text = t('controls.site_checking');
  else if (status.pending > 0) text = t(status.pending === 1 ? 'controls.site_rendering_one' : 'controls.site_rendering', { count: status.pending.toLocaleString() });
  else text = t('controls.site_up_to_date');

  return (
    <section class="site-artifacts" aria-labelledby="controls-site-heading">
      <h2 id="controls-site-heading">{t('controls.site')}</h2>
      <p class="hint">{t('controls.site_hint')}</p>
      <p class={'site-status' + (status && status.pending > 0 ? ' rendering' : '')} role="status">
        <strong>{text}</strong>
      </p>
      {error !== null && <ErrorBox error={error} onRetry={status ? undefined : () => setError(null)} />}
      {save.error !== null && <ErrorBox error={save.error} />}
      <div class="actions">
        <Button busy={save.busy} onClick={rebuild}>
          {t('controls.rebuild')}
        </Button>
        <span role="status">{save.done ? t('controls.rebuild_started') : ''}</span>
      </div>
    </section>
  );
}

export default function Controls(_props: ScreenProps) {
  const got = useRPC<ControlsState>('site.controls.get', {}, []);
  const [controls, setControls] = useState<ControlsState | null>(null);
  const apply = (c: ControlsState) => {
    setControls(c);
    controlsStore.set(c);
  };
  useEffect(() => {
    if (got.data) apply(got.data);
  }, [got.data]);

  const title = t('controls.title');
  if (got.error && !controls) {
    return (
      <Page title={title}>
        <ErrorBox error={got.error} onRetry={got.reload} />
      </Page>
    );
  }
  if (!controls) {
    return (
      <Page title={title}>
        <Loading />
      </Page>
    );
  }
  return (
    <Page title={title}>
      <p class="muted">{t('controls.intro')}</p>
      <div class="card">
        <h2>{t('controls.switches')}</h2>
        <p class="hint">{t('controls.switches_hint')}</p>
        {SWITCHES.map((name) => (
          <SwitchRow key={name} name={name} value={controls.switches[name] === true} onAnswer={apply} />
        ))}
      </div>
      <div class="card">
        <LockdownSection controls={controls} onAnswer={apply} />
      </div>
      <div class="card">
        <SiteSection />
      </div>
    </Page>
  );
}
