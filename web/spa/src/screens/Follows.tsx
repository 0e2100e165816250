// Following and followers: follow an account by @user@host, the accounts
// followed (unfollow), the followers (remove) and the follow requests of a
// locked persona (approve / reject). /follows/:tab picks the tab.
import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { Link, type ScreenProps } from '../router';
import { call, RPCError, type Page as RPCPage } from '../rpc';
import { InfiniteList } from '../ui/InfiniteList';
import { Button, Confirm, ErrorBox, Page } from '../ui/basic';
import { errorDetail, errorMessage } from '../ui/errors';
import { ActorLine, actorName } from '../social/ActorLine';
import { atAcct } from '../social/handle';
import { HandleForm } from '../social/HandleForm';
import { useRowActions, type RowActions } from '../social/rows';
import type { Actor, Follow } from '../social/types';
import '../social/social.css';

export const TABS = ['following', 'followers', 'requests'] as const;
export type Tab = (typeof TABS)[number];

export function tabOf(param: string | undefined): Tab {
  return (TABS as readonly string[]).includes(param ?? '') ? (param as Tab) : 'following';
}

const METHOD: Record<Tab, string> = { following: 'follows.list', followers: 'followers.list', requests: 'followers.pending' };

type Done = 'unfollowed' | 'removed' | 'approved' | 'rejected';

/** What follows.create's refusal means for this account. */
export function followError(err: unknown, a: Actor): string {
  const who = atAcct(a.acct);
  let s = errorMessage(err);
  if (err instanceof RPCError) {
    if (err.dataCode === 'conflict') s = t('follows.already', { who });
    else if (err.dataCode === 'forbidden') s = t('follows.forbidden', { who });
  }
  const d = errorDetail(err);
  return d ? `${s} ${t('err.detail', { message: d })}` : s;
}

function Row({ f, tab, rows }: { f: Follow; tab: Tab; rows: RowActions<Done> }) {
  const a = f.actor;
  const key = a.id;
  const done = rows.done.get(key);
  const busy = rows.busy === key;
  const name = actorName(a);
  const rel = a.relationship;
  let actions;
  if (done) {
    actions = <span role="status">{t(`follows.done_${done}`)}</span>;
  } else if (tab === 'following') {
    actions = (
      <Button busy={busy} onClick={() => rows.ask(key)}>
        {f.state === 'pending' ? t('follows.cancel_request') : t('follows.unfollow')}
      </Button>
    );
  } else if (tab === 'followers') {
    actions = (
      <Button busy={busy} onClick={() => rows.ask(key)}>
        {t('follows.remove')}
      </Button>
    );
  } else {
    actions = (
      <>
        <Button variant="primary" busy={busy} onClick={() => void rows.run(key, 'approved', () => call('followers.approve', { actor_id: key }))}>
          {t('follows.approve')}
        </Button>
        <Button disabled={busy} onClick={() => rows.ask(key)}>
          {t('follows.reject')}
        </Button>
      </>
    );
  }
  const confirm: Record<Tab, { msg: string; label: string; method: string; done: Done }> = {
    following: { msg: t('follows.confirm_unfollow', { name }), label: t('follows.unfollow'), method: 'follows.delete', done: 'unfollowed' },
    followers: { msg: t('follows.confirm_remove', { name }), label: t('follows.remove'), method: 'followers.delete', done: 'removed' },
    requests: { msg: t('follows.confirm_reject', { name }), label: t('follows.reject'), method: 'followers.reject', done: 'rejected' },
  };
  const c = confirm[tab];
  return (
    <>
      <div class="row">
        <ActorLine actor={a}>
          <span class="muted">
            {tab === 'following' && f.state === 'pending' && <span class="state-tag">{t('follows.pending')}</span>}
            {tab !== 'following' && rel?.following === 'accepted' && <span class="state-tag">{t('follows.mutual')}</span>}
            {tab === 'following' && rel?.followed_by === 'accepted' && <span class="state-tag">{t('follows.follows_you')}</span>}
          </span>
        </ActorLine>
        <div class="row-actions">{actions}</div>
      </div>
      {rows.confirming === key && !done && (
        <Confirm
          message={c.msg}
          confirmLabel={c.label}
          busy={busy}
          onCancel={() => rows.ask(null)}
          onConfirm={() => void rows.run(key, c.done, () => call(c.method, { actor_id: key }))}
        />
      )}
    </>
  );
}

export default function Follows({ params }: ScreenProps) {
  const tab = tabOf(params.tab);
  const rows = useRowActions<Done>();
  const [version, setVersion] = useState(0);
  const [followed, setFollowed] = useState<{ who: string; state: string; id: string } | null>(null);

  const follow = async (a: Actor) => {
    setFollowed(null);
    const f = await call<Follow>('follows.create', { actor_id: a.id });
    setFollowed({ who: atAcct(a.acct), state: f.state, id: a.id });
    if (tab === 'following') {
      rows.reset();
      setVersion((v) => v + 1);
    }
  };

  return (
    <Page title={t('nav.follows')}>
      <HandleForm label={t('follows.follow_label')} submit={t('follows.follow')} onActor={follow} describe={followError} />
      {followed && (
        <p role="status" class="card">
          {followed.state === 'pending' ? t('follows.requested', { who: followed.who }) : t('follows.now_following', { who: followed.who })}{' '}
          <Link href={'/actor/' + encodeURIComponent(followed.id)}>{t('follows.see_profile')}</Link>
        </p>
      )}
      <nav class="tabs" aria-label={t('follows.tabs')}>
        {TABS.map((x) => (
          <Link key={x} href={'/follows/' + x} class="button" aria-current={x === tab ? 'page' : undefined}>
            {t(`follows.tab_${x}`)}
          </Link>
        ))}
      </nav>
      {rows.error !== null && <ErrorBox error={rows.error} />}
      <InfiniteList
        load={(cursor, signal) => call<RPCPage<Follow>>(METHOD[tab], cursor ? { cursor } : {}, { signal })}
        reloadKey={`${tab}|${version}`}
        keyOf={(f: Follow) => f.id}
        label={t(`follows.tab_${tab}`)}
        empty={t(`follows.empty_${tab}`)}
        render={(f: Follow) => <Row f={f} tab={tab} rows={rows} />}
      />
    </Page>
  );
}
