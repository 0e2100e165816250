// The owner's posts (posts.list shows the owner drafts, scheduled posts and
// the site's pages too, newest first) with their state, a filter by state
// (and one for pages), and edit / delete / pin. The filter is in the URL
// (?state=draft) so it survives a reload.
import { useState } from 'preact/hooks';
import { t, type Key } from '../i18n';
import { Link, navigate, type ScreenProps } from '../router';
import { call, type Page as RPCPage } from '../rpc';
import { Confirm, ErrorBox, Page, Time } from '../ui/basic';
import { InfiniteList } from '../ui/InfiniteList';
import type { OwnPost } from './Compose';

export type StateFilter = 'all' | 'draft' | 'scheduled' | 'published' | 'pinned' | 'page';
export const FILTERS: readonly StateFilter[] = ['all', 'draft', 'scheduled', 'published', 'pinned', 'page'];

export function postState(p: OwnPost, now = Date.now()): 'draft' | 'scheduled' | 'published' {
  if (p.state) return p.state;
  if (p.published_at === null) return 'draft';
  return Date.parse(p.published_at) > now ? 'scheduled' : 'published';
}

export function matchesFilter(p: OwnPost, f: StateFilter, pinned: boolean): boolean {
  if (f === 'all') return true;
  if (f === 'pinned') return pinned;
  if (f === 'page') return p.page === true;
  return postState(p) === f;
}

/** Only published public or unlisted posts can be pinned, not pages (docs/api.md posts.pin). */
export function canPin(p: OwnPost): boolean {
  return postState(p) === 'published' && (p.visibility === 'public' || p.visibility === 'unlisted') && p.page !== true;
}

// The server filters nothing by state, so a filtered list reads pages of
// 100 until it has a screenful or has read MAX_READS pages; the cursor it
// hands back continues where it stopped.
const SCAN_LIMIT = 100;
const MAX_READS = 5;
const WANT = 20;

export async function loadFiltered(
  cursor: string | null,
  signal: AbortSignal,
  keep: (p: OwnPost) => boolean,
  fetchPage: (cursor: string | null, limit: number, signal: AbortSignal) => Promise<RPCPage<OwnPost>>,
): Promise<RPCPage<OwnPost>> {
  const items: OwnPost[] = [];
  let next: string | null = cursor;
  for (let reads = 0; reads < MAX_READS; reads++) {
    const page = await fetchPage(next, SCAN_LIMIT, signal);
    items.push(...page.items.filter(keep));
    next = page.next_cursor;
    if (next === null || items.length >= WANT) break;
  }
  return { items, next_cursor: next };
}

function excerpt(p: OwnPost): string {
  const src = (p.source ?? '').replace(/\s+/g, ' ').trim();
  const chars = [...src];
  return chars.length > 140 ? chars.slice(0, 139).join('') + '…' : src;
}

export default function Posts({ query }: ScreenProps) {
  const q = query.get('state') as StateFilter | null;
  const filter: StateFilter = q && FILTERS.includes(q) ? q : 'all';
  // Pin state the owner changed here; the server's `pinned`, when it sends one, otherwise.
  const [pins, setPins] = useState<Record<string, boolean>>({});
  const [deleted, setDeleted] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ id: string; err: unknown } | null>(null);
  // The pinned filter needs the server to say which posts are pinned (a `pinned` member).
  const [serverPins, setServerPins] = useState(filter === 'pinned');
  const pinned = (p: OwnPost) => pins[p.id] ?? p.pinned === true;

  const fetchPage = async (cursor: string | null, limit: number, signal: AbortSignal) => {
    const page = await call<RPCPage<OwnPost>>('posts.list', cursor ? { cursor, limit } : { limit }, { signal });
    if (page.items.some((p) => typeof p.pinned === 'boolean')) setServerPins(true);
    return page;
  };
  const load = (cursor: string | null, signal: AbortSignal) =>
    filter === 'all' ? fetchPage(cursor, 20, signal) : loadFiltered(cursor, signal, (p) => matchesFilter(p, filter, pinned(p)), fetchPage);

  const act = async (id: string, fn: () => Promise<void>) => {
    setBusy(id);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError({ id, err });
    } finally {
      setBusy(null);
    }
  };
  const remove = (p: OwnPost) => act(p.id, async () => {
    await call('posts.delete', { id: p.id });
    setDeleted((d) => new Set(d).add(p.id));
    setConfirm(null);
  });
  const togglePin = (p: OwnPost, pin: boolean) => act(p.id, async () => {
    await call(pin ? 'posts.pin' : 'posts.unpin', { id: p.id });
    setPins((m) => ({ ...m, [p.id]: pin }));
  });

  const render = (p: OwnPost) => {
    const state = postState(p);
    const isPinned = pinned(p);
    const known = p.pinned !== undefined || p.id in pins;
    return (
      <article class="own-post" aria-labelledby={'p-' + p.id}>
        <p class="row-title" id={'p-' + p.id}>
          {p.kind === 'article' ? p.title : excerpt(p) || t('posts.no_text')}
        </p>
        {p.kind === 'article' && <p class="muted small">{excerpt(p)}</p>}
        <p class="meta small">
          <span class={'tag state-' + state}>{t(('posts.state_' + state) as Key)}</span>
          {state === 'scheduled' && p.published_at && <> <Time iso={p.published_at} absolute /></>}
          {state === 'published' && p.published_at && <> <Time iso={p.published_at} /></>}
          {isPinned && <span class="tag pinned">{t('posts.pinned')}</span>}
          {p.page === true && <span class="tag page">{t('posts.page')}</span>}
          <span class="muted"> · {t(('compose.vis_' + p.visibility) as Key)}</span>
          {p.kind === 'article' && <span class="muted"> · {t('compose.article')}</span>}
        </p>
        <div class="actions">
          <Link class="button" href={'/compose/' + encodeURIComponent(p.id)}>
            {t('posts.edit')}
          </Link>
          {state === 'published' && (
            <a class="button plain" href={p.url} target="_blank" rel="noopener">
              {t('posts.view')}
            </a>
          )}
          {canPin(p) && (!known || !isPinned) && (
            <button type="button" class="button" disabled={busy === p.id} onClick={() => togglePin(p, true)}>
              {t('posts.pin')}
            </button>
          )}
          {canPin(p) && (!known || isPinned) && (
            <button type="button" class="button" disabled={busy === p.id} onClick={() => togglePin(p, false)}>
              {t('posts.unpin')}
            </button>
          )}
          <button type="button" class="button danger" onClick={() => setConfirm(p.id)}>
            {t('posts.delete')}
          </button>
        </div>
        {confirm === p.id && (
          <Confirm message={t('posts.delete_q')} confirmLabel={t('posts.delete')} busy={busy === p.id} onConfirm={() => remove(p)} onCancel={() => setConfirm(null)} />
        )}
        {error?.id === p.id && <ErrorBox error={error.err} />}
      </article>
    );
  };

  return (
    <Page
      title={t('nav.posts')}
      actions={
        <Link class="button primary" href="/compose">
          {t('nav.compose')}
        </Link>
      }
    >
      <div class="tabs" role="group" aria-label={t('posts.filter')}>
        {FILTERS.filter((f) => f !== 'pinned' || serverPins).map((f) => (
          <button
            key={f}
            type="button"
            class="button"
            aria-pressed={filter === f ? 'true' : 'false'}
            onClick={() => navigate(f === 'all' ? '/posts' : '/posts?state=' + f, { replace: true })}
          >
            {t(('posts.filter_' + f) as Key)}
          </button>
        ))}
      </div>
      <InfiniteList<OwnPost>
        load={load}
        render={render}
        keyOf={(p) => p.id}
        exclude={(p) => deleted.has(p.id)}
        reloadKey={filter}
        label={t('nav.posts')}
        empty={t(('posts.empty_' + filter) as Key)}
      />
    </Page>
  );
}
