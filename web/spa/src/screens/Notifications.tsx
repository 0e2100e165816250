// Notifications (notifications.list, newest first, paged as the owner
// scrolls), filtered by kind or unread; mark one read, all read, or delete
// one. Each change asks the shell to count the unread again, so the badge
// in the nav follows at once instead of at its next poll.
import { useState } from 'preact/hooks';
import { useSite, useTick } from '../hooks';
import { t } from '../i18n';
import { Link, type ScreenProps } from '../router';
import { call, type Page as RPCPage } from '../rpc';
import { InfiniteList } from '../ui/InfiniteList';
import { Button, Check, ErrorBox, Field, Page, Time } from '../ui/basic';
import { ActorLine } from '../social/ActorLine';
import { PostCard } from '../social/PostCard';
import type { Notification, NotificationKind } from '../social/types';

export const FILTERS = {
  all: null,
  mentions: ['mention', 'reply', 'quote'],
  follows: ['follow', 'follow_request'],
  favourites: ['favourite'],
  reblogs: ['reblog'],
  moves: ['move'],
} as const satisfies Record<string, readonly NotificationKind[] | null>;

export type Filter = keyof typeof FILTERS;

/** notifications.list's params for a filter, a cursor and the unread switch. */
export function listParams(filter: Filter, unread: boolean, cursor: string | null): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  const kinds = FILTERS[filter];
  if (kinds) p.kinds = kinds;
  if (unread) p.unread = true;
  if (cursor) p.cursor = cursor;
  return p;
}

const POST_KINDS: ReadonlySet<NotificationKind> = new Set(['mention', 'reply', 'favourite', 'reblog', 'quote']);

interface ItemProps {
  n: Notification;
  read: boolean;
  busy: boolean;
  onRead: () => void;
  onDelete: () => void;
}

function Item({ n, read, busy, onRead, onDelete }: ItemProps) {
  return (
    <div class={read ? 'notification' : 'notification unread'}>
      <div class="notification-head">
        <ActorLine actor={n.actor} size={32}>
          <p class="notification-what">
            {n.kind === 'follow_request' ? (
              <Link href="/follows/requests">{t('notifications.kind_follow_request')}</Link>
            ) : (
              t(`notifications.kind_${n.kind}`)
            )}{' '}
            · <Time iso={n.created_at} />
            {!read && <span class="sr-only"> · {t('notifications.unread')}</span>}
          </p>
        </ActorLine>
        <div class="row-actions">
          {!read && (
            <Button busy={busy} onClick={onRead}>
              {t('notifications.mark_read')}
            </Button>
          )}
          <Button variant="plain" disabled={busy} onClick={onDelete}>
            {t('notifications.delete')}
          </Button>
        </div>
      </div>
      {n.remote_post && <PostCard post={n.remote_post} />}
      {n.post && <PostCard post={n.post} embedded />}
      {!n.post && !n.remote_post && POST_KINDS.has(n.kind) && <p class="muted">{t('notifications.post_gone')}</p>}
    </div>
  );
}

export default function Notifications(_props: ScreenProps) {
  useTick();
  const site = useSite();
  const [filter, setFilter] = useState<Filter>('all');
  const [unread, setUnread] = useState(false);
  const [version, setVersion] = useState(0);
  const [readIds, setReadIds] = useState<ReadonlySet<string>>(new Set());
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set());
  const [allRead, setAllRead] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reloadKey = `${filter}|${unread}|${version}`;

  const reload = () => {
    setReadIds(new Set());
    setDeleted(new Set());
    setAllRead(false);
    setVersion((v) => v + 1);
  };

  const run = async (key: string, fn: () => Promise<unknown>, done: () => void) => {
    setBusy(key);
    setError(null);
    try {
      await fn();
      done();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
      site.refreshUnread();
    }
  };

  const readOne = (id: string) =>
    run(id, () => call('notifications.read', { ids: [id] }), () => setReadIds((s) => new Set(s).add(id)));
  const deleteOne = (id: string) =>
    run(id, () => call('notifications.delete', { id }), () => setDeleted((s) => new Set(s).add(id)));
  const readAll = () => run('*', () => call('notifications.read_all', {}), () => setAllRead(true));

  return (
    <Page
      title={t('nav.notifications')}
      actions={
        <>
          <Button busy={busy === '*'} onClick={() => void readAll()}>
            {t('notifications.read_all')}
          </Button>
          <Button onClick={reload}>{t('notifications.refresh')}</Button>
        </>
      }
    >
      <div class="filters">
        <Field label={t('notifications.filter')}>
          <select value={filter} onChange={(e) => setFilter((e.currentTarget as HTMLSelectElement).value as Filter)}>
            {(Object.keys(FILTERS) as Filter[]).map((f) => (
              <option key={f} value={f}>
                {t(`notifications.filter_${f}`)}
              </option>
            ))}
          </select>
        </Field>
        <Check label={t('notifications.unread_only')} checked={unread} onChange={setUnread} />
      </div>
      {error !== null && <ErrorBox error={error} />}
      <InfiniteList
        load={(cursor, signal) => call<RPCPage<Notification>>('notifications.list', listParams(filter, unread, cursor), { signal })}
        reloadKey={reloadKey}
        keyOf={(n: Notification) => n.id}
        label={t('notifications.label')}
        empty={unread ? t('notifications.empty_unread') : t('notifications.empty')}
        render={(n: Notification) =>
          deleted.has(n.id) ? (
            <p class="muted">{t('notifications.deleted')}</p>
          ) : (
            <Item
              n={n}
              read={n.read || allRead || readIds.has(n.id)}
              busy={busy === n.id}
              onRead={() => void readOne(n.id)}
              onDelete={() => void deleteOne(n.id)}
            />
          )
        }
      />
    </Page>
  );
}
