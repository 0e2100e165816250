// Blocked accounts (blocks.*) and blocked servers (domain_blocks.*). Every
// block and unblock asks first: a block ends the follows both ways, a
// server block silently ends every follow with that server.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useRPC } from '../hooks';
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { call, type Page as RPCPage } from '../rpc';
import { InfiniteList } from '../ui/InfiniteList';
import { Button, Confirm, Empty, ErrorBox, Field, Loading, Page, Time } from '../ui/basic';
import { errorDetail, errorMessage, fieldError } from '../ui/errors';
import { ActorLine, actorName } from '../social/ActorLine';
import { validHost } from '../social/handle';
import { HandleForm } from '../social/HandleForm';
import { countChars } from '../social/ReplyBox';
import { useRowActions, type RowActions } from '../social/rows';
import type { Actor, DomainBlock } from '../social/types';
import '../social/social.css';

export const REASON_CHARS = 1000;

/** A blocked account or server with its Unblock button, which asks first. */
function Unblockable({ id, rows, message, unblock, children }: {
  id: string;
  rows: RowActions<'unblocked'>;
  message: string;
  unblock: () => Promise<unknown>;
  children: ComponentChildren;
}) {
  const done = rows.done.has(id);
  return (
    <>
      <div class="row">
        {children}
        <div class="row-actions">
          {done ? (
            <span role="status">{t('blocks.unblocked')}</span>
          ) : (
            <Button busy={rows.busy === id} onClick={() => rows.ask(id)}>
              {t('blocks.unblock')}
            </Button>
          )}
        </div>
      </div>
      {rows.confirming === id && !done && (
        <Confirm
          message={message}
          confirmLabel={t('blocks.unblock')}
          danger={false}
          busy={rows.busy === id}
          onCancel={() => rows.ask(null)}
          onConfirm={() => void rows.run(id, 'unblocked', unblock)}
        />
      )}
    </>
  );
}

function Accounts() {
  const rows = useRowActions<'unblocked'>();
  const [pending, setPending] = useState<Actor | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);

  const block = async (a: Actor) => {
    setBusy(true);
    setError(null);
    try {
      await call('blocks.create', { actor_id: a.id });
      setPending(null);
      rows.reset();
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="blocks-accounts">
      <h2 id="blocks-accounts">{t('blocks.accounts')}</h2>
      <HandleForm label={t('blocks.block_label')} submit={t('blocks.block')} hint={t('blocks.block_hint')} onActor={async (a) => setPending(a)} />
      {pending && (
        <Confirm
          message={t('remoteprofile.confirm_block', { name: actorName(pending) })}
          confirmLabel={t('blocks.block')}
          busy={busy}
          onCancel={() => setPending(null)}
          onConfirm={() => void block(pending)}
        />
      )}
      {error !== null && <ErrorBox error={error} />}
      {rows.error !== null && <ErrorBox error={rows.error} />}
      <InfiniteList
        load={(cursor, signal) => call<RPCPage<Actor>>('blocks.list', cursor ? { cursor } : {}, { signal })}
        reloadKey={version}
        keyOf={(a: Actor) => a.id}
        label={t('blocks.accounts')}
        empty={t('blocks.no_accounts')}
        render={(a: Actor) => (
          <Unblockable
            id={a.id}
            rows={rows}
            message={t('blocks.confirm_unblock', { name: actorName(a) })}
            unblock={() => call('blocks.delete', { actor_id: a.id })}
          >
            <ActorLine actor={a} />
          </Unblockable>
        )}
      />
    </section>
  );
}

function Domains() {
  const list = useRPC<RPCPage<DomainBlock>>('domain_blocks.list', {}, []);
  const rows = useRowActions<'unblocked'>();
  const [domain, setDomain] = useState('');
  const [reason, setReason] = useState('');
  const [formError, setFormError] = useState<unknown>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const reasonChars = countChars(reason);

  const check = (e: Event) => {
    e.preventDefault();
    setFormError(null);
    if (!validHost(domain)) {
      setLocalError(t('blocks.domain_invalid'));
      return;
    }
    if (reasonChars > REASON_CHARS) return;
    setLocalError(null);
    setConfirming(true);
  };
  const create = async () => {
    setBusy(true);
    try {
      await call<DomainBlock>('domain_blocks.create', { domain: domain.trim().toLowerCase(), reason });
      setDomain('');
      setReason('');
      setConfirming(false);
      rows.reset();
      list.reload();
    } catch (err) {
      setFormError(err);
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };

  const domainErr = localError ?? fieldError(formError, 'domain');
  const reasonErr = fieldError(formError, 'reason');
  const otherErr = formError !== null && !domainErr && !reasonErr;
  const items = list.data?.items ?? [];
  return (
    <section aria-labelledby="blocks-domains">
      <h2 id="blocks-domains">{t('blocks.domains')}</h2>
      <form class="card" onSubmit={check} noValidate>
        <Field label={t('blocks.domain_label')} error={domainErr} hint={t('blocks.domain_hint')}>
          <input type="text" autoComplete="off" autoCapitalize="none" spellcheck={false} placeholder="spam.example" value={domain} onInput={(e) => setDomain((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field
          label={t('blocks.reason_label')}
          error={reasonErr}
          aside={<span class={reasonChars > REASON_CHARS ? 'counter over' : 'counter'}>{t('timeline.reply_counter', { count: reasonChars, limit: REASON_CHARS })}</span>}
        >
          <textarea value={reason} onInput={(e) => setReason((e.currentTarget as HTMLTextAreaElement).value)} />
        </Field>
        {otherErr && (
          <p class="field-error" role="alert">
            {errorMessage(formError)} {errorDetail(formError) && t('err.detail', { message: errorDetail(formError)! })}
          </p>
        )}
        {confirming ? (
          <Confirm message={t('blocks.confirm_domain', { domain: domain.trim().toLowerCase() })} confirmLabel={t('blocks.block_domain')} busy={busy} onCancel={() => setConfirming(false)} onConfirm={() => void create()} />
        ) : (
          <div class="actions">
            <Button type="submit" variant="danger" disabled={reasonChars > REASON_CHARS}>
              {t('blocks.block_domain')}
            </Button>
          </div>
        )}
      </form>
      {rows.error !== null && <ErrorBox error={rows.error} />}
      {list.error && !list.data ? (
        <ErrorBox error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : items.length === 0 ? (
        <Empty>{t('blocks.no_domains')}</Empty>
      ) : (
        <ul class="list" aria-label={t('blocks.domains')}>
          {items.map((b) => (
            <li key={b.domain}>
              <Unblockable
                id={b.domain}
                rows={rows}
                message={t('blocks.confirm_undomain', { domain: b.domain })}
                unblock={() => call('domain_blocks.delete', { domain: b.domain })}
              >
                <div>
                  <strong class="inbox">{b.domain}</strong>
                  {b.reason && <p class="hint">{b.reason}</p>}
                  <p class="hint">
                    <Time iso={b.created_at} />
                  </p>
                </div>
              </Unblockable>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function Blocks(_props: ScreenProps) {
  return (
    <Page title={t('nav.blocks')}>
      <Accounts />
      <Domains />
    </Page>
  );
}
