// The home timeline (timeline.home): the owner's posts and what the followed
// accounts posted or boosted, newest first, loaded as the owner scrolls with
// at most ~200 posts in the DOM (InfiniteList). Pull down on a phone, or
// press Refresh, to load the newest; a light poll says when there are new
// posts. queue.tick runs while it is open so deliveries keep moving.
import { useCallback, useRef, useState } from 'preact/hooks';
import { usePoll, useTick } from '../hooks';
import { t } from '../i18n';
import { Link, type ScreenProps } from '../router';
import { call, type Page as RPCPage } from '../rpc';
import { InfiniteList } from '../ui/InfiniteList';
import { PullToRefresh } from '../ui/PullToRefresh';
import { Button, Page } from '../ui/basic';
import { PostCard } from '../social/PostCard';
import type { TimelineItem } from '../social/types';

export const NEW_POSTS_POLL_MS = 60_000;

/** Whether the newest item on the server is not the one at the top of the list. */
export function hasNewer(top: string | null | undefined, newest: TimelineItem | undefined): boolean {
  return top !== undefined && newest !== undefined && newest.id !== top;
}

export default function Timeline(_props: ScreenProps) {
  useTick();
  const [reloadKey, setReloadKey] = useState(0);
  const [fresh, setFresh] = useState(false);
  // The id at the top of the first page; undefined until it has loaded.
  const top = useRef<string | null | undefined>(undefined);
  const waiting = useRef<(() => void) | null>(null);

  const load = useCallback(async (cursor: string | null, signal: AbortSignal): Promise<RPCPage<TimelineItem>> => {
    try {
      const page = await call<RPCPage<TimelineItem>>('timeline.home', cursor ? { cursor } : {}, { signal });
      if (cursor === null) {
        top.current = page.items[0]?.id ?? null;
        setFresh(false);
      }
      return page;
    } finally {
      if (cursor === null) {
        waiting.current?.();
        waiting.current = null;
      }
    }
  }, []);

  const refresh = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current = resolve;
        setReloadKey((k) => k + 1);
      }),
    [],
  );

  usePoll(async () => {
    if (top.current === undefined) return;
    try {
      const page = await call<RPCPage<TimelineItem>>('timeline.home', { limit: 1 });
      if (hasNewer(top.current, page.items[0])) setFresh(true);
    } catch {
      // A hint only; the list shows its own errors.
    }
  }, NEW_POSTS_POLL_MS);

  return (
    <Page
      title={t('nav.home')}
      actions={
        <Button onClick={() => void refresh()}>{t('timeline.refresh')}</Button>
      }
    >
      <PullToRefresh onRefresh={refresh}>
        <div role="status" aria-live="polite">
          {fresh && (
            <Button class="new-posts" variant="primary" onClick={() => void refresh()}>
              {t('timeline.new_posts')}
            </Button>
          )}
        </div>
        <InfiniteList
          load={load}
          reloadKey={reloadKey}
          keyOf={(it: TimelineItem) => it.id}
          label={t('timeline.label')}
          render={(it: TimelineItem) => <PostCard post={it.post} boostedBy={it.boosted_by} />}
          empty={
            <>
              {t('timeline.empty')} <Link href="/follows">{t('timeline.empty_follow')}</Link>
            </>
          }
        />
      </PullToRefresh>
    </Page>
  );
}
