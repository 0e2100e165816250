// One post with its thread (posts.get_thread): the ancestors this site has,
// the post, and the replies below it; for the owner's own posts also where
// the post was delivered (posts.deliveries), refreshed while open.
// /post/:id names a local post, /post?uri=… a cached remote one.
import { useState } from 'preact/hooks';
import { useRPC, useTick } from '../hooks';
import { t } from '../i18n';
import { Link, type ScreenProps } from '../router';
import { Empty, ErrorBox, Loading, Page } from '../ui/basic';
import { Deliveries } from '../social/Deliveries';
import { PostCard } from '../social/PostCard';
import { isRemote, type AnyPost, type LocalPost, type Thread } from '../social/types';

/** The thread's params from the route, or null when the address names no post. */
export function threadParams(params: Record<string, string>, query: URLSearchParams): { id: string } | { uri: string } | null {
  if (params.id) return { id: params.id };
  const uri = query.get('uri');
  return uri ? { uri } : null;
}

function keyOf(p: AnyPost): string {
  return isRemote(p) ? 'r:' + p.uri : 'l:' + p.id;
}

export default function PostDetail({ params, query }: ScreenProps) {
  useTick();
  const which = threadParams(params, query);
  const thread = useRPC<Thread>('posts.get_thread', which, [params.id, query.get('uri')]);
  // Replies posted from this screen, shown before the next reload brings them.
  const [added, setAdded] = useState<LocalPost[]>([]);

  if (!which) {
    return (
      <Page title={t('postdetail.title')}>
        <Empty>{t('postdetail.no_post')}</Empty>
        <p>
          <Link href="/">{t('notfound.home')}</Link>
        </p>
      </Page>
    );
  }
  let body;
  if (thread.error && !thread.data) body = <ErrorBox error={thread.error} onRetry={thread.reload} />;
  else if (!thread.data) body = <Loading />;
  else {
    const { ancestors, post, descendants } = thread.data;
    const seen = new Set(descendants.map(keyOf));
    const replies = [...descendants, ...added.filter((p) => !seen.has(keyOf(p)))];
    const reply = (p: LocalPost) => setAdded((a) => [...a, p]);
    body = (
      <>
        <ol class="thread" aria-label={t('postdetail.thread')}>
          {ancestors.map((p) => (
            <li key={keyOf(p)} class="thread-ancestor">
              <PostCard post={p} />
            </li>
          ))}
          <li class="thread-focus" aria-current="true">
            <PostCard post={post} focus onReplied={reply} />
          </li>
        </ol>
        <h2>{t('postdetail.replies', { count: replies.length })}</h2>
        {replies.length === 0 ? (
          <Empty>{t('postdetail.no_replies')}</Empty>
        ) : (
          <ol class="thread" aria-label={t('postdetail.replies_label')}>
            {replies.map((p) => (
              <li key={keyOf(p)}>
                <PostCard post={p} onReplied={reply} />
              </li>
            ))}
          </ol>
        )}
        {!isRemote(post) && <Deliveries id={post.id} />}
      </>
    );
  }
  return <Page title={t('postdetail.title')}>{body}</Page>;
}
