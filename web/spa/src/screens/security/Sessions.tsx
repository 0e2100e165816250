// The owner's browser sessions (sessions.list), the current one marked;
// ending one (sessions.revoke) or all the others (sessions.revoke_others).
import { useState } from 'preact/hooks';
import { useRPC } from '../../hooks';
import { t } from '../../i18n';
import { call, type Page } from '../../rpc';
import { Button, Confirm, Empty, ErrorBox, Loading, Time } from '../../ui/basic';

export interface Session {
  id: string;
  user_agent: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  current: boolean;
}

/** A short name for a User-Agent string ("Firefox on Android"), else the string cut short. */
export function describeAgent(ua: string): string {
  if (!ua.trim()) return t('security.ua_unknown');
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : '';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Windows/.test(ua) ? 'Windows' : /Mac OS X/.test(ua) ? 'macOS' : /Linux/.test(ua) ? 'Linux' : '';
  if (browser && os) return t('security.ua_on', { browser, os });
  return browser || os || (ua.length > 60 ? ua.slice(0, 57) + '…' : ua);
}

export function Sessions({ version }: { version: number }) {
  const list = useRPC<Page<Session>>('sessions.list', {}, [version]);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'others' | string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState<string | null>(null);

  const run = async (key: string, fn: () => Promise<string>) => {
    setBusy(key);
    setError(null);
    setMessage(null);
    try {
      setMessage(await fn());
      setConfirm(null);
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const others = () => run('others', async () => {
    const r = await call<{ revoked: number }>('sessions.revoke_others', {});
    return t('security.sessions_revoked', { n: r.revoked });
  });
  const revoke = (id: string) => run(id, async () => {
    await call('sessions.revoke', { id });
    return t('security.session_revoked');
  });

  const items = list.data?.items ?? [];
  const hasOthers = items.some((s) => !s.current);

  return (
    <section aria-labelledby="sess-h">
      <h2 id="sess-h">{t('security.sessions_title')}</h2>
      {list.loading && !list.data ? (
        <Loading />
      ) : list.error && !list.data ? (
        <ErrorBox error={list.error} onRetry={list.reload} />
      ) : items.length === 0 ? (
        <Empty />
      ) : (
        <ul class="list sessions">
          {items.map((s) => (
            <li key={s.id} class={s.current ? 'current' : undefined}>
              <p class="row-title">
                {describeAgent(s.user_agent)}
                {s.current && <strong class="tag">{t('security.session_current')}</strong>}
              </p>
              <p class="muted small">
                {t('security.session_seen')} <Time iso={s.last_seen_at} /> · {t('security.session_created')} <Time iso={s.created_at} absolute /> ·{' '}
                {t('security.session_expires')} <Time iso={s.expires_at} absolute />
              </p>
              {!s.current && (confirm === s.id ? (
                <Confirm message={t('security.session_revoke_q')} confirmLabel={t('security.session_revoke')} busy={busy === s.id} onConfirm={() => revoke(s.id)} onCancel={() => setConfirm(null)} />
              ) : (
                <button type="button" class="button" onClick={() => setConfirm(s.id)}>
                  {t('security.session_revoke')}
                </button>
              ))}
            </li>
          ))}
        </ul>
      )}
      {error !== null && <ErrorBox error={error} />}
      {message && (
        <p class="ok" role="status">
          {message}
        </p>
      )}
      {hasOthers && (confirm === 'others' ? (
        <Confirm message={t('security.sessions_others_q')} confirmLabel={t('security.sessions_others')} busy={busy === 'others'} onConfirm={others} onCancel={() => setConfirm(null)} />
      ) : (
        <Button onClick={() => setConfirm('others')}>{t('security.sessions_others')}</Button>
      ))}
    </section>
  );
}
