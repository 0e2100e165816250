// One post in the timeline, a thread or a notification: its author, time,
// content warning, content, media, the quoted post, and reply / boost /
// like. Only the server's sanitized HTML (a post's `content`, a remote
// post's `summary`) goes through <SafeHTML>; names, handles, titles and the
// owner's own content warnings are text.
import { useId, useState } from 'preact/hooks';
import { t } from '../i18n';
import { Link } from '../router';
import { call } from '../rpc';
import { SafeHTML } from '../ui/SafeHTML';
import { Avatar, ErrorBox, Time } from '../ui/basic';
import { actorHref, actorName } from './ActorLine';
import { atAcct, webURL } from './handle';
import { Media } from './Media';
import { personaAvatar, usePersona } from './persona';
import { ReplyBox } from './ReplyBox';
import { useToggle } from './toggle';
import { isRemote, type Actor, type AnyPost, type LocalPost, type RemotePost } from './types';
import './social.css';

/** The app's page of a post, or null when it has none (a remote post not cached here). */
export function postHref(p: AnyPost): string | null {
  if (!isRemote(p)) return '/post/' + encodeURIComponent(p.id);
  return p.id ? '/post?uri=' + encodeURIComponent(p.uri) : null;
}

/** Which post a like or boost names: the cached copy by id, else the URI (the server fetches it). */
export function interactionParams(p: RemotePost): { post_id: string } | { uri: string } {
  return p.id ? { post_id: p.id } : { uri: p.uri };
}

export function canBoost(p: RemotePost): boolean {
  return p.visibility === 'public' || p.visibility === 'unlisted';
}

function Author({ post }: { post: AnyPost }) {
  const persona = usePersona(isRemote(post) ? null : post.persona_id);
  if (isRemote(post)) {
    const name = actorName(post.actor);
    return (
      <>
        <Avatar src={webURL(post.actor.avatar_url)} name={name} size={48} />
        <span class="post-author">
          <Link href={actorHref(post.actor)} class="actor-name">
            <bdi>{name}</bdi>
          </Link>
          <span class="acct">
            <bdi>{atAcct(post.actor.acct)}</bdi>
          </span>
        </span>
      </>
    );
  }
  const name = persona ? persona.display_name.trim() || persona.username : t('timeline.you');
  return (
    <>
      <Avatar src={personaAvatar(persona)} name={name} size={48} />
      <span class="post-author">
        <span class="actor-name">
          <bdi>{name}</bdi>
        </span>
        {persona && (
          <span class="acct">
            <bdi>{atAcct(persona.acct)}</bdi>
          </span>
        )}
      </span>
    </>
  );
}

function PostTime({ post }: { post: AnyPost }) {
  // A draft has no publication time: it says so instead.
  const iso = post.published_at ?? '';
  const href = postHref(post);
  const time = iso ? <Time iso={iso} /> : <span>{t('timeline.state_draft')}</span>;
  if (href) {
    return (
      <Link href={href} class="post-time">
        <span class="sr-only">{t('timeline.open')}: </span>
        {time}
      </Link>
    );
  }
  const url = webURL(post.url);
  return url ? (
    <a href={url} class="post-time" target="_blank" rel="noopener noreferrer nofollow">
      {time}
    </a>
  ) : (
    <span class="post-time">{time}</span>
  );
}

/**
 * An article in a list: its title and excerpt (text) and a link to read it
 * here, so a long text with its own headings never fills the timeline.
 */
function ArticleTeaser({ post, lang }: { post: LocalPost; lang: string | undefined }) {
  const href = postHref(post)!;
  return (
    <div class="post-teaser">
      <p class="post-title" lang={lang}>
        <Link href={href}>{post.title}</Link>
      </p>
      {post.excerpt && (
        <p class="post-excerpt" lang={lang}>
          {post.excerpt}
        </p>
      )}
      <Link href={href} class="read-more">
        {t('timeline.read_more')}
        <span class="sr-only">: {post.title}</span>
      </Link>
    </div>
  );
}

function Body({ post, embedded, focus }: { post: AnyPost; embedded: boolean; focus: boolean }) {
  const remote = isRemote(post);
  const cw = post.summary.trim() !== '';
  const [open, setOpen] = useState(!cw);
  const lang = post.language || undefined;
  const bodyId = 'pb' + useId();
  let content;
  if (remote && post.external) {
    const url = webURL(post.url);
    content = (
      <div class="post-external">
        {post.name && (
          <p class="post-title" lang={lang}>
            {post.name}
          </p>
        )}
        {url && (
          <a href={url} target="_blank" rel="noopener noreferrer nofollow">
            {t('timeline.read_original')}
          </a>
        )}
      </div>
    );
  } else if (!remote && post.kind === 'article' && !focus) {
    content = <ArticleTeaser post={post} lang={lang} />;
  } else {
    content = (
      <>
        {!remote && post.title && (
          <p class="post-title" lang={lang}>
            {post.title}
          </p>
        )}
        <SafeHTML html={post.content} class="post-content" lang={lang} />
      </>
    );
  }
  return (
    <>
      {cw && (
        <div class="cw">
          {remote ? <SafeHTML html={post.summary} class="cw-text" lang={lang} /> : <p class="cw-text">{post.summary}</p>}
          <button type="button" class="button" aria-expanded={open ? 'true' : 'false'} aria-controls={bodyId} onClick={() => setOpen(!open)}>
            {open ? t('timeline.cw_hide') : t('timeline.cw_show')}
          </button>
        </div>
      )}
      <div id={bodyId} hidden={!open}>
        {open && (
          <>
            {content}
            {remote && <Media attachments={post.attachments} sensitive={post.sensitive} />}
            {remote && post.quote && (
              <div class="quote" role="group" aria-label={t('timeline.quote')}>
                {embedded ? (
                  <QuoteLink post={post.quote} />
                ) : (
                  <PostCard post={post.quote} embedded />
                )}
              </div>
            )}
          </>
        )}
      </div>
    </>
  );
}

/** A quote inside a quote is only linked: the server gives one level. */
function QuoteLink({ post }: { post: AnyPost }) {
  const href = postHref(post);
  return href ? <Link href={href}>{t('timeline.quote_open')}</Link> : null;
}

// The labels stay the same and aria-pressed says the state, as toggle
// buttons should (styles.css colours a pressed button).
function Interactions({ post }: { post: RemotePost }) {
  const like = useToggle(post.favourited, (on) => call(on ? 'favourites.create' : 'favourites.delete', interactionParams(post)));
  const boost = useToggle(post.reblogged, (on) => call(on ? 'reblogs.create' : 'reblogs.delete', interactionParams(post)));
  const boostable = canBoost(post);
  return (
    <>
      <button
        type="button"
        class="button action-boost"
        aria-pressed={boost.on ? 'true' : 'false'}
        disabled={boost.busy || (!boostable && !boost.on)}
        title={boostable ? undefined : t('timeline.boost_private')}
        onClick={() => void boost.toggle()}
      >
        {t('timeline.boost')}
      </button>
      <button
        type="button"
        class="button action-like"
        aria-pressed={like.on ? 'true' : 'false'}
        disabled={like.busy}
        onClick={() => void like.toggle()}
      >
        {t('timeline.like')}
      </button>
      {(like.error !== null || boost.error !== null) && (
        <div class="action-error">
          <ErrorBox error={like.error ?? boost.error} />
        </div>
      )}
    </>
  );
}

export interface PostCardProps {
  post: AnyPost;
  boostedBy?: Actor | null;
  /** A quoted post inside another: no actions. */
  embedded?: boolean;
  /** The post a thread is about. */
  focus?: boolean;
  /** Called with the reply once posted (a thread adds it). */
  onReplied?: (reply: LocalPost) => void;
}

export function PostCard({ post, boostedBy, embedded = false, focus = false, onReplied }: PostCardProps) {
  const [replying, setReplying] = useState(false);
  const [sent, setSent] = useState<LocalPost | null>(null);
  const remote = isRemote(post);
  const cls = ['post', embedded && 'post-embedded', focus && 'post-focus'].filter(Boolean).join(' ');
  return (
    <article class={cls} lang={post.language || undefined}>
      {boostedBy && (
        <p class="boosted-by muted">
          {t('timeline.boosted_by_prefix')}{' '}
          <Link href={actorHref(boostedBy)}>
            <bdi>{actorName(boostedBy)}</bdi>
          </Link>
        </p>
      )}
      <header class="post-head">
        <Author post={post} />
        <PostTime post={post} />
      </header>
      <Body post={post} embedded={embedded} focus={focus} />
      {!embedded && (
        <footer class="post-actions">
          <button type="button" class="button action-reply" aria-expanded={replying ? 'true' : 'false'} onClick={() => setReplying(!replying)}>
            {t('timeline.reply')}
          </button>
          {remote && <Interactions post={post} />}
          {!remote && post.visibility !== 'public' && <span class="muted vis">{t(`timeline.vis_${post.visibility as 'public'}`)}</span>}
        </footer>
      )}
      {replying && (
        <ReplyBox
          to={post}
          onCancel={() => setReplying(false)}
          onSent={(p) => {
            setReplying(false);
            setSent(p);
            onReplied?.(p);
          }}
        />
      )}
      {sent && (
        <p class="reply-sent" role="status">
          {t('timeline.reply_sent')} <Link href={'/post/' + encodeURIComponent(sent.id)}>{t('timeline.open')}</Link>
        </p>
      )}
    </article>
  );
}
