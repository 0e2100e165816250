// API tokens for scripts: the list, a new one (its secret shown once), revoking.
import { useState } from 'preact/hooks';
import { useRPC } from '../hooks';
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { call, RPCError, type Page as RPCPage } from '../rpc';
import { Button, Confirm, CopyButton, Empty, ErrorBox, Field, Loading, Page, Time } from '../ui/basic';
import { fieldError } from '../ui/errors';

export interface Token {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export interface NewToken extends Token {
  token: string;
}

function CreateForm({ onCreated }: { onCreated: (t: NewToken) => void }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!name.trim()) {
      setError(new RPCError(-32602, t('tokens.name_required'), 'invalid', 'name'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onCreated(await call<NewToken>('tokens.create', { name: name.trim() }));
      setName('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const nameErr = fieldError(error, 'name');
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="tok-new-h">
      <h2 id="tok-new-h">{t('tokens.new')}</h2>
      <Field label={t('tokens.name')} hint={t('tokens.name_hint')} error={nameErr}>
        <input type="text" maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      {error !== null && !nameErr && <ErrorBox error={error} />}
      <Button type="submit" variant="primary" busy={busy}>
        {t('tokens.create')}
      </Button>
    </form>
  );
}

function Secret({ token, onDone }: { token: NewToken; onDone: () => void }) {
  return (
    <div class="card secret-box" role="region" aria-labelledby="tok-secret-h">
      <h2 id="tok-secret-h">{t('tokens.created', { name: token.name })}</h2>
      <p class="warning">{t('tokens.once')}</p>
      <p class="secret">{token.token}</p>
      <div class="actions">
        <CopyButton text={token.token} />
        <Button onClick={onDone}>{t('tokens.done')}</Button>
      </div>
    </div>
  );
}

export default function Tokens(_props: ScreenProps) {
  const [version, setVersion] = useState(0);
  const list = useRPC<RPCPage<Token>>('tokens.list', {}, [version]);
  const [created, setCreated] = useState<NewToken | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const revoke = async (id: string) => {
    setBusy(id);
    setError(null);
    try {
      await call('tokens.revoke', { id });
      setConfirm(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const items = list.data?.items ?? [];
  return (
    <Page title={t('nav.tokens')}>
      <p class="muted">{t('tokens.intro')}</p>
      {created ? (
        <Secret token={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateForm
          onCreated={(tok) => {
            setCreated(tok);
            setVersion((v) => v + 1);
          }}
        />
      )}
      <h2>{t('tokens.list')}</h2>
      {list.loading && !list.data ? (
        <Loading />
      ) : list.error && !list.data ? (
        <ErrorBox error={list.error} onRetry={list.reload} />
      ) : items.length === 0 ? (
        <Empty>{t('tokens.empty')}</Empty>
      ) : (
        <ul class="list tokens">
          {items.map((tok) => (
            <li key={tok.id}>
              <p class="row-title">
                {tok.name} <code>{tok.prefix}…</code>
              </p>
              <p class="muted small">
                {t('tokens.created_at')} <Time iso={tok.created_at} absolute /> ·{' '}
                {tok.last_used_at ? (
                  <>
                    {t('tokens.last_used')} <Time iso={tok.last_used_at} />
                  </>
                ) : (
                  t('tokens.never_used')
                )}
              </p>
              {confirm === tok.id ? (
                <Confirm
                  message={t('tokens.revoke_q', { name: tok.name })}
                  confirmLabel={t('tokens.revoke')}
                  busy={busy === tok.id}
                  onConfirm={() => revoke(tok.id)}
                  onCancel={() => setConfirm(null)}
                />
              ) : (
                <button type="button" class="button" onClick={() => setConfirm(tok.id)} aria-label={t('tokens.revoke_named', { name: tok.name })}>
                  {t('tokens.revoke')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {error !== null && <ErrorBox error={error} />}
    </Page>
  );
}
