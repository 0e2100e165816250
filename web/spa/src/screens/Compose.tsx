// Compose: a note or an article (Markdown with a title, an address — its
// slug, shown as the title gives it until edited — and a "page of the site"
// switch), the server's own rendering as a live preview (posts.preview,
// 400 ms after typing stops), content warning, sensitive, visibility,
// language, and publish now / schedule / keep as draft. /compose/:id edits a post (posts.get →
// posts.update). ?in_reply_to=<post URL> writes a reply.
//
// The unsent text is kept in localStorage "murlog.draft" as it is typed, so
// an expired session (the shell sends the owner through login and back here)
// or a closed tab loses nothing.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useSite } from '../hooks';
import { t, type Key } from '../i18n';
import { Link, navigate, type ScreenProps } from '../router';
import { call, RPCError } from '../rpc';
import { Button, Check, ErrorBox, Field, Loading, Page, Time } from '../ui/basic';
import { fieldError } from '../ui/errors';
import { SafeHTML } from '../ui/SafeHTML';
import {
  clearDraft, counter, defaultSchedule, DEFAULT_LIMITS, isoToLocal, loadDraft, postParams, problems, saveDraft,
  sendDisabled, timeZoneLabel, VISIBILITIES, withSlug, withTitle, type EditContext, type Form, type Kind, type Limits, type Preview, type When,
} from './compose/logic';
import { MAX_SLUG, slugify } from './compose/slug';

export const PREVIEW_DELAY_MS = 400;

/** A post as posts.get answers the owner. */
export interface OwnPost {
  id: string;
  kind: Kind;
  title?: string;
  content: string;
  source?: string;
  summary: string;
  sensitive: boolean;
  visibility: Form['visibility'];
  language: string;
  published_at: string | null;
  state?: 'draft' | 'scheduled' | 'published';
  url: string;
  in_reply_to: string;
  pinned?: boolean;
  /** Articles: the address under the persona ("" or absent for none yet). */
  slug?: string;
  /** Articles: a page of the site. */
  page?: boolean;
}

const emptyForm = (): Form => ({
  kind: 'note', title: '', content: '', summary: '', sensitive: false, visibility: 'public', language: '',
  when: 'now', scheduleAt: defaultSchedule(), slug: '', slugTouched: false, slugSaved: '', page: false,
});

function formFromPost(p: OwnPost): Form {
  const state = p.state ?? (p.published_at === null ? 'draft' : Date.parse(p.published_at) > Date.now() ? 'scheduled' : 'published');
  return {
    kind: p.kind, title: p.title ?? '', content: p.source ?? '', summary: p.summary, sensitive: p.sensitive,
    visibility: p.visibility, language: p.language, when: state === 'draft' ? 'draft' : state === 'scheduled' ? 'schedule' : 'now',
    scheduleAt: state === 'scheduled' && p.published_at ? isoToLocal(p.published_at) : defaultSchedule(),
    slug: p.slug || slugify(p.title ?? ''), slugTouched: false, slugSaved: p.slug ?? '', page: p.page === true,
  };
}

const PROBLEM_TEXT: Record<string, Key> = {
  title_missing: 'compose.title_missing',
  title_long: 'compose.title_long',
  summary_long: 'compose.summary_long',
  schedule_invalid: 'compose.schedule_invalid',
  schedule_past: 'compose.schedule_past',
  slug_long: 'compose.slug_long',
  slug_invalid: 'compose.slug_invalid',
  slug_reserved: 'compose.slug_reserved',
  page_visibility: 'compose.page_visibility',
};

/** posts.preview for the current text, PREVIEW_DELAY_MS after the last change. */
function usePreview(kind: Kind, content: string, title: string) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    if (content.trim() === '') {
      setPending(false);
      return;
    }
    setPending(true);
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      const params = kind === 'article' ? { kind, content, title } : { kind, content };
      call<{ html: string; chars: number; limit: number }>('posts.preview', params, { signal: ctrl.signal }).then(
        (r) => {
          setPreview({ kind, content, title, ...r });
          setError(null);
          setPending(false);
        },
        (err) => {
          if (ctrl.signal.aborted) return;
          setError(err);
          setPending(false);
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [kind, content, title]);
  return { preview, error, pending };
}

type Done = { post: OwnPost; when: When };

export default function Compose({ params, query }: ScreenProps) {
  const editId = params.id ?? null;
  const inReplyTo = editId ? null : query.get('in_reply_to');
  const site = useSite();
  const limits: Limits = { ...DEFAULT_LIMITS, ...(site.info?.limits ?? {}) };

  // A new post starts from the kept draft of a new post, if there is one.
  const [initial] = useState(() => {
    const d = editId === null ? loadDraft() : null;
    return d && d.id === null ? withTitle({ ...emptyForm(), kind: d.kind, content: d.content, summary: d.summary }, d.title) : null;
  });
  const [form, setForm] = useState<Form>(() => initial ?? emptyForm());
  const [original, setOriginal] = useState<OwnPost | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [loading, setLoading] = useState(editId !== null);
  const [loadVersion, setLoadVersion] = useState(0);
  const [restored, setRestored] = useState(initial !== null);
  const [busy, setBusy] = useState(false);
  const [sendError, setSendError] = useState<unknown>(null);
  const [tried, setTried] = useState(false);
  const [done, setDone] = useState<Done | null>(null);
  // Whether the form holds the post to edit yet: until then nothing is kept as a draft.
  const ready = useRef(editId === null);

  // Load the post to edit, then lay a kept draft of that same post over it.
  useEffect(() => {
    if (editId === null) return;
    ready.current = false;
    const ctrl = new AbortController();
    setLoading(true);
    setLoadError(null);
    call<OwnPost>('posts.get', { id: editId }, { signal: ctrl.signal }).then(
      (p) => {
        const draft = loadDraft();
        setOriginal(p);
        let f = formFromPost(p);
        if (draft && draft.id === editId && (draft.content !== f.content || draft.title !== f.title || draft.summary !== f.summary)) {
          f = { ...withTitle(f, draft.title), content: draft.content, summary: draft.summary };
          setRestored(true);
        }
        setForm(f);
        setLoading(false);
        ready.current = true;
      },
      (err) => {
        if (ctrl.signal.aborted) return;
        setLoadError(err);
        setLoading(false);
      },
    );
    return () => ctrl.abort();
  }, [editId, loadVersion]);

  // Keep the unsent text as it is typed.
  useEffect(() => {
    if (!ready.current || done) return;
    if (original && form.content === (original.source ?? '') && form.title === (original.title ?? '') && form.summary === original.summary) {
      // Back to what is saved: forget this post's draft, but not a new post's kept elsewhere.
      if (loadDraft()?.id === editId) clearDraft();
      return;
    }
    saveDraft({ id: editId, kind: form.kind, title: form.title, content: form.content, summary: form.summary });
  }, [form.kind, form.title, form.content, form.summary]);

  const { preview, error: previewError, pending } = usePreview(form.kind, form.content, form.title);
  const count = counter(form, preview, limits);
  const found = useMemo(() => problems(form, count, limits), [form, count.over, limits.title_chars, limits.summary_chars]);

  const change = (fn: (f: Form) => Form) => {
    setForm(fn);
    setDone(null);
  };
  const set = <K extends keyof Form>(k: K, v: Form[K]) => change((f) => ({ ...f, [k]: v }));

  const discard = () => {
    clearDraft();
    setRestored(false);
    if (original) setForm(formFromPost(original));
    else setForm(emptyForm());
  };

  const edit: EditContext | null = original ? { id: original.id, state: original.state ?? 'published' } : null;

  const send = async (e: Event) => {
    e.preventDefault();
    setTried(true);
    if (found.length > 0 || busy) return;
    setBusy(true);
    setSendError(null);
    try {
      const p = postParams(form, edit, inReplyTo);
      const post = await call<OwnPost>(edit ? 'posts.update' : 'posts.create', p);
      if (loadDraft()?.id === editId) clearDraft();
      setRestored(false);
      if (edit) {
        navigate('/posts');
        return;
      }
      setDone({ post, when: form.when });
      setTried(false);
      setForm((f) => ({ ...emptyForm(), kind: f.kind, visibility: f.visibility, language: f.language }));
    } catch (err) {
      // An expired session: the shell goes to login; the draft is already kept.
      setSendError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = editId ? t('compose.edit_title') : inReplyTo ? t('compose.reply_title') : t('nav.compose');
  if (loading) return <Page title={title}><Loading /></Page>;
  if (loadError) return <Page title={title}><ErrorBox error={loadError} onRetry={() => setLoadVersion((v) => v + 1)} /></Page>;

  const fe = (f: string) => fieldError(sendError, f);
  const knownField = sendError instanceof RPCError && ['content', 'title', 'summary', 'language', 'published_at', 'visibility', 'slug', 'page'].includes(sendError.field ?? '');
  const limitOf = (p: string) => (p === 'title_long' ? limits.title_chars : p === 'slug_long' ? MAX_SLUG : limits.summary_chars);
  const problemText = (p: keyof typeof PROBLEM_TEXT) =>
    found.includes(p as never) ? t(PROBLEM_TEXT[p]!, { n: limitOf(p), example: slugify(form.slug) || 'my-article' }) : undefined;
  const whenLabel: Record<When, Key> = {
    now: edit?.state === 'published' ? 'compose.when_published' : 'compose.when_now',
    schedule: 'compose.when_schedule',
    draft: 'compose.when_draft',
  };
  const submitLabel = edit ? t('compose.save') : form.when === 'draft' ? t('compose.save_draft') : form.when === 'schedule' ? t('compose.schedule') : t('compose.publish');

  return (
    <Page title={title}>
      {done && <DoneBox done={done} />}
      {restored && (
        <div class="banner restored" role="status">
          {t('compose.restored')}{' '}
          <button type="button" class="button" onClick={discard}>
            {t('compose.discard')}
          </button>
        </div>
      )}
      {inReplyTo && (
        <p class="muted">
          {t('compose.replying_to')} <a href={inReplyTo} rel="noopener noreferrer" target="_blank">{inReplyTo}</a>
        </p>
      )}
      <form class="compose" onSubmit={send} noValidate>
        <fieldset class="kind">
          <legend>{t('compose.kind')}</legend>
          {(['note', 'article'] as const).map((k) => (
            <label key={k} class="radio">
              <input type="radio" name="kind" value={k} checked={form.kind === k} disabled={edit !== null} onChange={() => set('kind', k)} />
              {t(k === 'note' ? 'compose.note' : 'compose.article')}
            </label>
          ))}
        </fieldset>

        {form.kind === 'article' && (
          <>
            <Field label={t('compose.title')} error={fe('title') ?? (tried ? problemText('title_missing') : undefined) ?? problemText('title_long')}>
              <input type="text" value={form.title} onInput={(e) => change((f) => withTitle(f, e.currentTarget.value))} />
            </Field>
            <Field
              label={t('compose.slug')}
              hint={t('compose.slug_hint')}
              error={fe('slug') ?? problemText('slug_invalid') ?? problemText('slug_reserved') ?? problemText('slug_long')}
            >
              <input
                type="text"
                autocapitalize="off"
                spellcheck={false}
                value={form.slug}
                onInput={(e) => change((f) => withSlug(f, e.currentTarget.value))}
              />
            </Field>
            <Check
              label={t('compose.page')}
              checked={form.page}
              hint={fe('page') ?? problemText('page_visibility') ?? t('compose.page_hint')}
              onChange={(v) => set('page', v)}
            />
          </>
        )}

        <div class="compose-body">
          <Field
            label={t(form.kind === 'article' ? 'compose.markdown' : 'compose.text')}
            error={fe('content') ?? (tried && found.includes('empty') ? t('compose.empty') : undefined)}
            hint={t(form.kind === 'article' ? 'compose.markdown_hint' : 'compose.text_hint')}
            aside={
              <span id="compose-counter" class={count.over ? 'counter over' : 'counter'}>
                {t('compose.counter', { chars: count.chars.toLocaleString(), limit: count.limit.toLocaleString() })}
              </span>
            }
          >
            <textarea
              aria-describedby="compose-counter"
              rows={form.kind === 'article' ? 16 : 6}
              value={form.content}
              onInput={(e) => set('content', e.currentTarget.value)}
            />
          </Field>
          <p class="sr-only" role="status">
            {count.over ? t('compose.over', { n: (count.chars - count.limit).toLocaleString() }) : ''}
          </p>
          {count.over && (
            <p class="field-error" aria-hidden="true">
              {t('compose.over', { n: (count.chars - count.limit).toLocaleString() })}
            </p>
          )}

          <section class="preview" aria-labelledby="preview-h">
            <h2 id="preview-h">
              {t('compose.preview')} {pending && <span class="muted small">{t('compose.preview_pending')}</span>}
            </h2>
            {form.content.trim() === '' ? (
              <p class="muted">{t('compose.preview_empty')}</p>
            ) : previewError !== null && !pending ? (
              <p class="muted">{t('compose.preview_failed')}</p>
            ) : preview && preview.kind === form.kind ? (
              <>
                {form.kind === 'article' && preview.title && <p class="preview-title">{preview.title}</p>}
                <SafeHTML html={preview.html} class="post-content" lang={form.language || undefined} />
              </>
            ) : (
              <Loading />
            )}
          </section>
        </div>

        <Field label={t('compose.summary')} hint={t('compose.summary_hint')} error={fe('summary') ?? problemText('summary_long')}>
          <input type="text" value={form.summary} onInput={(e) => set('summary', e.currentTarget.value)} />
        </Field>
        <Check
          label={t('compose.sensitive')}
          checked={form.sensitive || form.summary.trim() !== ''}
          disabled={form.summary.trim() !== ''}
          hint={form.summary.trim() !== '' ? t('compose.sensitive_forced') : undefined}
          onChange={(v) => set('sensitive', v)}
        />

        <div class="row">
          <Field label={t('compose.visibility')} error={fe('visibility')}>
            <select value={form.visibility} onChange={(e) => set('visibility', e.currentTarget.value as Form['visibility'])}>
              {VISIBILITIES.map((v) => (
                <option key={v} value={v}>
                  {t(('compose.vis_' + v) as Key)}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t('compose.language')} hint={t('compose.language_hint')} error={fe('language')}>
            <input type="text" list="compose-langs" autocapitalize="off" spellcheck={false} maxLength={35} value={form.language} onInput={(e) => set('language', e.currentTarget.value)} />
          </Field>
          <datalist id="compose-langs">
            <option value="ja" />
            <option value="en" />
          </datalist>
        </div>

        <fieldset class="when">
          <legend>{t('compose.when')}</legend>
          {(['now', 'schedule', 'draft'] as const).map((w) => (
            <label key={w} class="radio">
              <input type="radio" name="when" value={w} checked={form.when === w} onChange={() => set('when', w)} />
              {t(whenLabel[w])}
            </label>
          ))}
          {form.when === 'schedule' && (
            <Field
              label={t('compose.schedule_at')}
              hint={t('compose.timezone', { zone: timeZoneLabel() })}
              error={fe('published_at') ?? problemText('schedule_invalid') ?? problemText('schedule_past')}
            >
              <input type="datetime-local" value={form.scheduleAt} onInput={(e) => set('scheduleAt', e.currentTarget.value)} />
            </Field>
          )}
        </fieldset>

        {sendError !== null && !knownField && <ErrorBox error={sendError} />}
        <div class="actions">
          <Button type="submit" variant="primary" busy={busy} disabled={sendDisabled(found)}>
            {submitLabel}
          </Button>
          {edit && (
            <Link class="button plain" href="/posts">
              {t('ui.cancel')}
            </Link>
          )}
        </div>
      </form>
    </Page>
  );
}

function DoneBox({ done }: { done: Done }) {
  const { post, when } = done;
  return (
    <div class="card done" role="status">
      <p>
        {when === 'draft' ? (
          t('compose.done_draft')
        ) : when === 'schedule' && post.published_at ? (
          <>
            {t('compose.done_scheduled')} <Time iso={post.published_at} absolute />
          </>
        ) : (
          t('compose.done_published')
        )}
      </p>
      <p class="actions">
        {when === 'now' && (
          <a href={post.url} target="_blank" rel="noopener">
            {t('compose.view')}
          </a>
        )}
        <Link href={'/compose/' + encodeURIComponent(post.id)}>{t('compose.edit')}</Link>
        <Link href="/posts">{t('nav.posts')}</Link>
      </p>
    </div>
  );
}
