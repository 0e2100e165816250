// A remote account's collections, fetched from its server page by page:
// its posts (actors.outbox) and its followers / following
// (actors.followers / actors.following, which give only account URIs and
// a total; an account may hide them and show only the total).
import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { Link } from '../router';
import { call, type Page as RPCPage } from '../rpc';
import { InfiniteList } from '../ui/InfiniteList';
import { webURL } from './handle';
import { PostCard } from './PostCard';
import type { RemotePost } from './types';

export function Outbox({ id }: { id: string }) {
  return (
    <InfiniteList
      load={(cursor, signal) => call<RPCPage<RemotePost>>('actors.outbox', cursor ? { id, cursor } : { id }, { signal })}
      reloadKey={id}
      keyOf={(p: RemotePost) => p.uri}
      label={t('remoteprofile.tab_posts')}
      empty={t('remoteprofile.no_posts')}
      render={(p: RemotePost) => <PostCard post={p} />}
    />
  );
}

interface AccountsPage {
  items: { uri: string }[];
  total: number | null;
  next_cursor: string | null;
}

/** An account URI as a short label: host and path, e.g. "r.example/users/bob". */
export function shortURI(uri: string): string {
  const u = webURL(uri);
  if (!u) return uri;
  const x = new URL(u);
  return x.host + (x.pathname === '/' ? '' : x.pathname);
}

export function Accounts({ id, which }: { id: string; which: 'followers' | 'following' }) {
  const [total, setTotal] = useState<number | null>(null);
  const load = async (cursor: string | null, signal: AbortSignal): Promise<RPCPage<{ uri: string }>> => {
    const page = await call<AccountsPage>('actors.' + which, cursor ? { id, cursor } : { id }, { signal });
    if (cursor === null) setTotal(page.total);
    return { items: page.items, next_cursor: page.next_cursor };
  };
  const label = t(`remoteprofile.tab_${which}`);
  return (
    <>
      {total !== null && total > 0 && <p class="muted">{t('remoteprofile.total', { count: total })}</p>}
      <InfiniteList
        load={load}
        reloadKey={id + which}
        keyOf={(x: { uri: string }) => x.uri}
        label={label}
        empty={total ? t('remoteprofile.hidden', { count: total }) : t('remoteprofile.none')}
        render={(x: { uri: string }) => (
          <Link href={'/actor?q=' + encodeURIComponent(x.uri)} class="inbox">
            {shortURI(x.uri)}
          </Link>
        )}
      />
    </>
  );
}
