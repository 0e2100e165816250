// A remote account: /actor/:id (cached, actors.get) or /actor?q=@user@host
// (fetched, actors.lookup). Its profile — display name and handle as text,
// bio and field values as the server's sanitized HTML — follow / unfollow,
// block / unblock, and its posts, followers and following (?tab=), fetched
// from its server page by page.
import { useEffect, useState } from 'preact/hooks';
import { useRPC } from '../hooks';
import { t } from '../i18n';
import { Link, type ScreenProps } from '../router';
import { call } from '../rpc';
import { SafeHTML } from '../ui/SafeHTML';
import { Avatar, Button, Confirm, ErrorBox, Loading, Page } from '../ui/basic';
import { actorName } from '../social/ActorLine';
import { atAcct, parseHandle, webURL } from '../social/handle';
import { handleError, lookupError } from '../social/HandleForm';
import { Accounts, Outbox } from '../social/RemoteLists';
import type { Actor, Follow, Relationship } from '../social/types';
import '../social/social.css';

export const PROFILE_TABS = ['posts', 'followers', 'following'] as const;
type ProfileTab = (typeof PROFILE_TABS)[number];

/** What to ask for: actors.get by id, actors.lookup by a checked q, or why q is refused. */
export function profileRequest(params: Record<string, string>, query: URLSearchParams):
  { method: 'actors.get'; params: { id: string } } | { method: 'actors.lookup'; params: { q: string } } | { refused: 'empty' | 'format' } {
  if (params.id) return { method: 'actors.get', params: { id: params.id } };
  const h = parseHandle(query.get('q') ?? '');
  return h.ok ? { method: 'actors.lookup', params: { q: h.q } } : { refused: h.reason };
}

function tabHref(path: string, query: URLSearchParams, tab: ProfileTab): string {
  const q = new URLSearchParams(query);
  if (tab === 'posts') q.delete('tab');
  else q.set('tab', tab);
  const s = q.toString();
  return path + (s ? '?' + s : '');
}

const NO_REL: Relationship = { following: 'none', followed_by: 'none', blocking: false, blocked_by: false, domain_blocking: false };

function Actions({ actor, onChange }: { actor: Actor; onChange: (r: Relationship) => void }) {
  const rel = actor.relationship ?? NO_REL;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [confirm, setConfirm] = useState<'unfollow' | 'block' | null>(null);
  const name = actorName(actor);
  const run = async (fn: () => Promise<Relationship>) => {
    setBusy(true);
    setError(null);
    try {
      onChange(await fn());
      setConfirm(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const follow = () =>
    run(async () => {
      const f = await call<Follow>('follows.create', { actor_id: actor.id });
      return { ...rel, following: f.state };
    });
  const unfollow = () =>
    run(async () => {
      await call('follows.delete', { actor_id: actor.id });
      return { ...rel, following: 'none' };
    });
  // A block ends the follows both ways (docs/api.md blocks.create).
  const block = () =>
    run(async () => {
      await call('blocks.create', { actor_id: actor.id });
      return { ...rel, blocking: true, following: 'none', followed_by: 'none' };
    });
  const unblock = () =>
    run(async () => {
      await call('blocks.delete', { actor_id: actor.id });
      return { ...rel, blocking: false };
    });

  const cantFollow = rel.blocking || rel.blocked_by || rel.domain_blocking;
  return (
    <div class="profile-actions">
      <div class="actions">
        {rel.following === 'none' ? (
          <Button variant="primary" busy={busy} disabled={cantFollow} onClick={() => void follow()}>
            {actor.locked ? t('remoteprofile.request') : t('follows.follow')}
          </Button>
        ) : (
          <Button busy={busy} onClick={() => setConfirm('unfollow')}>
            {rel.following === 'pending' ? t('follows.cancel_request') : t('follows.unfollow')}
          </Button>
        )}
        {rel.blocking ? (
          <Button busy={busy} onClick={() => void unblock()}>
            {t('blocks.unblock')}
          </Button>
        ) : (
          <Button variant="danger" disabled={busy} onClick={() => setConfirm('block')}>
            {t('remoteprofile.block')}
          </Button>
        )}
      </div>
      <p class="muted" role="status">
        {[
          rel.following === 'accepted' && t('remoteprofile.you_follow'),
          rel.following === 'pending' && t('follows.pending'),
          rel.followed_by === 'accepted' && t('follows.follows_you'),
          rel.followed_by === 'pending' && t('remoteprofile.requested_you'),
          rel.blocking && t('remoteprofile.blocking'),
          rel.blocked_by && t('remoteprofile.blocked_by'),
          rel.domain_blocking && t('remoteprofile.domain_blocking'),
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {confirm === 'unfollow' && (
        <Confirm message={t('follows.confirm_unfollow', { name })} confirmLabel={t('follows.unfollow')} busy={busy} onCancel={() => setConfirm(null)} onConfirm={() => void unfollow()} />
      )}
      {confirm === 'block' && (
        <Confirm message={t('remoteprofile.confirm_block', { name })} confirmLabel={t('remoteprofile.block')} busy={busy} onCancel={() => setConfirm(null)} onConfirm={() => void block()} />
      )}
      {error !== null && <ErrorBox error={error} />}
    </div>
  );
}

function Profile({ actor, onChange }: { actor: Actor; onChange: (r: Relationship) => void }) {
  const name = actorName(actor);
  const header = webURL(actor.header_url);
  const url = webURL(actor.url);
  return (
    <div class="profile">
      {header && <img class="profile-header" src={header} alt="" referrerpolicy="no-referrer" />}
      <div class="profile-top">
        <Avatar src={webURL(actor.avatar_url)} name={name} size={96} />
        <div class="profile-names">
          <span class="actor-name">
            <bdi>{name}</bdi>
          </span>
          <span class="acct">
            <bdi>{atAcct(actor.acct)}</bdi>
          </span>
          <span>
            {actor.locked && <span class="state-tag">{t('remoteprofile.locked')}</span>}{' '}
            {actor.type !== 'Person' && actor.type && <span class="state-tag">{actor.type}</span>}
          </span>
        </div>
      </div>
      {actor.moved_to && (
        <p class="card">
          {t('remoteprofile.moved')} <Link href={'/actor?q=' + encodeURIComponent(actor.moved_to)}>{t('remoteprofile.moved_link')}</Link>
        </p>
      )}
      <Actions actor={actor} onChange={onChange} />
      {actor.summary && <SafeHTML html={actor.summary} class="profile-bio" />}
      {actor.fields.length > 0 && (
        <dl class="profile-fields">
          {actor.fields.map((f, i) => (
            <div key={i} class="profile-field">
              <dt>{f.name}</dt>
              <dd>
                <SafeHTML html={f.value} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      {url && (
        <p>
          <a href={url} target="_blank" rel="noopener noreferrer nofollow">
            {t('remoteprofile.original')}
          </a>
        </p>
      )}
    </div>
  );
}

export default function RemoteProfile({ params, query }: ScreenProps) {
  const req = profileRequest(params, query);
  const ok = 'method' in req;
  const res = useRPC<Actor>(ok ? req.method : 'actors.get', ok ? req.params : null, [params.id, query.get('q')]);
  const [actor, setActor] = useState<Actor | null>(null);
  useEffect(() => setActor(res.data ?? null), [res.data]);
  const tabParam = query.get('tab');
  const tab: ProfileTab = (PROFILE_TABS as readonly string[]).includes(tabParam ?? '') ? (tabParam as ProfileTab) : 'posts';
  const path = params.id ? '/actor/' + encodeURIComponent(params.id) : '/actor';

  let body;
  let title = t('remoteprofile.title');
  if (!ok) body = <p class="error-box" role="alert">{handleError(req.refused)}</p>;
  else if (res.error && !actor) {
    body =
      req.method === 'actors.lookup' ? (
        <div class="error-box" role="alert">
          <p>{lookupError(res.error, req.params.q)}</p>
          <button type="button" class="button" onClick={res.reload}>
            {t('ui.retry')}
          </button>
        </div>
      ) : (
        <ErrorBox error={res.error} onRetry={res.reload} />
      );
  } else if (!actor) body = <Loading />;
  else {
    title = actorName(actor);
    body = (
      <>
        <Profile actor={actor} onChange={(relationship) => setActor({ ...actor, relationship })} />
        <nav class="tabs" aria-label={t('remoteprofile.tabs')}>
          {PROFILE_TABS.map((x) => (
            <Link key={x} href={tabHref(path, query, x)} class="button" aria-current={x === tab ? 'page' : undefined}>
              {t(`remoteprofile.tab_${x}`)}
            </Link>
          ))}
        </nav>
        {tab === 'posts' ? <Outbox id={actor.id} /> : <Accounts id={actor.id} which={tab} />}
      </>
    );
  }
  return <Page title={title}>{body}</Page>;
}
