// The inline reply under a post: a note posted with posts.create and
// in_reply_to = the answered post's id IRI (a remote post's uri, a local
// post's url). A reply to a remote post starts with its author's handle, so
// the author's server shows it as a mention too.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { useSite } from '../hooks';
import { t } from '../i18n';
import { Button, ErrorBox, Field } from '../ui/basic';
import { fieldError } from '../ui/errors';
import { call } from '../rpc';
import { atAcct } from './handle';
import { isRemote, type AnyPost, type LocalPost } from './types';

export const DEFAULT_NOTE_CHARS = 3000;

/** The id IRI a reply names in in_reply_to. */
export function replyTarget(p: AnyPost): string {
  return isRemote(p) ? p.uri : p.url;
}

/** A reply keeps a narrow audience narrow: followers-only and direct posts are answered alike. */
export function replyVisibility(p: AnyPost): string {
  return p.visibility === 'followers' || p.visibility === 'direct' ? p.visibility : 'public';
}

/** Characters as the server counts them: code points. */
export function countChars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const VISIBILITIES = ['public', 'unlisted', 'followers', 'direct'] as const;

export function ReplyBox({ to, onSent, onCancel }: { to: AnyPost; onSent: (p: LocalPost) => void; onCancel: () => void }) {
  const { info } = useSite();
  const limit = info?.limits?.note_chars || DEFAULT_NOTE_CHARS;
  const [text, setText] = useState(isRemote(to) && to.actor.acct ? atAcct(to.actor.acct) + ' ' : '');
  const [visibility, setVisibility] = useState(replyVisibility(to));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ref = useRef<HTMLTextAreaElement>(null);
  const uid = useId();
  const chars = countChars(text);
  const over = chars > limit;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange?.(el.value.length, el.value.length);
  }, []);

  const send = async (e: Event) => {
    e.preventDefault();
    if (over || text.trim() === '' || busy) return;
    setBusy(true);
    setError(null);
    try {
      const p = await call<LocalPost>('posts.create', { content: text, in_reply_to: replyTarget(to), visibility });
      onSent(p);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const contentError = fieldError(error, 'content');
  return (
    <form
      class="reply-box"
      onSubmit={send}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <Field
        label={t('timeline.reply_label')}
        error={contentError}
        aside={
          <span class={over ? 'counter over' : 'counter'} id={'rc' + uid} aria-live="polite">
            {t('timeline.reply_counter', { count: chars, limit })}
          </span>
        }
      >
        <textarea
          ref={ref}
          value={text}
          aria-describedby={'rc' + uid}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        />
      </Field>
      <Field label={t('timeline.reply_visibility')}>
        <select value={visibility} onChange={(e) => setVisibility((e.currentTarget as HTMLSelectElement).value)}>
          {VISIBILITIES.map((v) => (
            <option key={v} value={v}>
              {t(`timeline.vis_${v}`)}
            </option>
          ))}
        </select>
      </Field>
      {error !== null && !contentError && <ErrorBox error={error} />}
      <div class="actions">
        <Button type="submit" variant="primary" busy={busy} disabled={over || text.trim() === ''}>
          {t('timeline.reply_send')}
        </Button>
        <Button onClick={onCancel}>{t('ui.cancel')}</Button>
      </div>
    </form>
  );
}
