// The public site's settings: everything site.update_settings accepts
// (docs/api.md "site", "Public-site settings"), the extensions as form
// controls, and a theme picker with a live preview of the post page
// (design.md: /my/preview/{theme}). A refused setting's message is shown
// next to the control the server names.
import { useEffect, useState } from 'preact/hooks';
import { useRPC } from '../hooks';
import { t } from '../i18n';
import type { Page as RPCPage } from '../rpc';
import type { ScreenProps } from '../router';
import { call } from '../rpc';
import { Counter } from '../settings/Counter';
import { placeError, type Placed } from '../settings/errors';
import { useSave } from '../settings/useSave';
import {
  buildSiteUpdate,
  COMMENT_MODES,
  formFromSettings,
  publicURL,
  SHARE_IDS,
  SITE_LIMITS,
  SITE_CONTROLS,
  siteProblems,
  toggleShare,
  unknownShareIds,
  type ExtensionsForm,
  type Settings,
  type SiteForm,
  type SiteProblems,
} from '../settings/site';
import { ThemePicker } from '../settings/ThemePicker';
import '../settings/site.css';
import { Button, Check, ErrorBox, Field, Loading, Page } from '../ui/basic';

interface PersonaRef {
  id: string;
  username: string;
  display_name: string;
  primary: boolean;
}

const SHARE_LABELS = { x: 'site.share_x', facebook: 'site.share_facebook', line: 'site.share_line', hatena: 'site.share_hatena' } as const;
const MODE_LABELS = { none: 'site.comments_none', moderated: 'site.comments_moderated', open: 'site.comments_open' } as const;

/** An error about a group of controls (a fieldset), which has no input to mark. */
function GroupError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="field-error" tabIndex={-1}>
      {t('ui.field_error', { message })}
    </p>
  );
}

export default function Site(_props: ScreenProps) {
  const personas = useRPC<RPCPage<PersonaRef>>('personas.list', {}, []);
  const [personaId, setPersonaId] = useState('');
  const settings = useRPC<Settings>('site.get_settings', personaId ? { persona_id: personaId } : {}, [personaId]);
  const [stored, setStored] = useState<Settings | null>(null);
  const [form, setForm] = useState<SiteForm | null>(null);
  const save = useSave<Settings>();
  const error = save.error;

  useEffect(() => {
    if (!settings.data) return;
    setStored(settings.data);
    setForm(formFromSettings(settings.data));
    save.reset();
  }, [settings.data]);

  useEffect(() => {
    if (error) (document.querySelector('.site-form [aria-invalid="true"], .site-form .field-error[tabindex]') as HTMLElement | null)?.focus();
  }, [error]);

  const title = t('site.title');
  const list = personas.data?.items ?? [];
  const persona = list.find((p) => (personaId ? p.id === personaId : p.primary));
  const actions = (
    <a class="button" href={publicURL(persona)}>
      {t('site.view_public')}
    </a>
  );

  if (settings.error && !settings.data) {
    return (
      <Page title={title} actions={actions}>
        <ErrorBox error={settings.error} onRetry={settings.reload} />
      </Page>
    );
  }
  if (!form || !stored || settings.loading) return <Page title={title} actions={actions}><Loading /></Page>;

  const edit = (change: Partial<SiteForm>) => {
    setForm({ ...form, ...change });
    save.edited();
  };
  const editExt = (change: Partial<ExtensionsForm>) => edit({ ext: { ...form.ext, ...change } });
  const probs = siteProblems(form);
  const blocked = Object.keys(probs).length > 0;
  const placed = placeError(error, SITE_CONTROLS);
  const pid = personaId || undefined;

  const submit = (e: Event) => {
    e.preventDefault();
    if (blocked) return;
    void save.run(
      () => call<Settings>('site.update_settings', buildSiteUpdate(form, stored, pid)),
      (next) => {
        setStored(next);
        setForm(formFromSettings(next));
      },
    );
  };

  const pub = stored.publication;
  const kept = pub ? unknownShareIds(pub.extensions) : [];
  const text = (key: keyof SiteForm & string, path: string, label: string, max: number, opts: { hint?: string; area?: boolean } = {}) => (
    <Field
      label={label}
      hint={opts.hint}
      error={errorOf(probs, placed, path)}
      aside={<Counter value={path.startsWith('publication.') ? String(form[key]).trim() : String(form[key])} max={max} />}
    >
      {opts.area ? (
        <textarea rows={4} value={String(form[key])} onInput={(e) => edit({ [key]: e.currentTarget.value })} />
      ) : (
        <input type="text" value={String(form[key])} onInput={(e) => edit({ [key]: e.currentTarget.value })} />
      )}
    </Field>
  );
  const check = (key: keyof SiteForm & string, path: string, label: string, hint?: string) => (
    <>
      <Check label={label} hint={hint} checked={form[key] === true} onChange={(v) => edit({ [key]: v })} />
      <GroupError message={placed.at(path)} />
    </>
  );
  const count = (key: 'show_side_recent' | 'show_side_popular', label: string) => (
    <Field label={label} hint={t('site.side_count_hint', { max: SITE_LIMITS.side })} error={errorOf(probs, placed, 'publication.' + key)}>
      <input type="number" inputMode="numeric" min={0} max={SITE_LIMITS.side} step={1} value={form[key]} onInput={(e) => edit({ [key]: e.currentTarget.value })} />
    </Field>
  );

  return (
    <Page title={title} actions={actions}>
      {list.length > 1 && (
        <Field label={t('site.persona')} hint={t('site.persona_hint')}>
          <select value={personaId || list.find((p) => p.primary)?.id || ''} onChange={(e) => setPersonaId(e.currentTarget.value)}>
            {list.map((p) => (
              <option key={p.id} value={p.id}>
                {p.display_name ? `${p.display_name} (@${p.username})` : '@' + p.username}
              </option>
            ))}
          </select>
        </Field>
      )}

      {pub && <ThemePicker publication={pub} personaId={pid} onApplied={setStored} />}

      <form class="site-form" onSubmit={submit} noValidate>
        <h2>{t('site.general')}</h2>
        <p class="muted">{t('site.domain', { domain: stored.domain })}</p>
        <Field label={t('site.language')} hint={t('site.language_hint')} error={errorOf(probs, placed, 'language')}>
          <input type="text" list="site-languages" autoComplete="off" spellcheck={false} placeholder="en" value={form.language} onInput={(e) => edit({ language: e.currentTarget.value })} />
        </Field>
        <datalist id="site-languages">
          <option value="ja" />
          <option value="en" />
        </datalist>

        <fieldset>
          <legend>{t('site.crawlers')}</legend>
          {check('robots_noindex', 'robots_noindex', t('site.robots_noindex'), t('site.robots_noindex_hint'))}
          {check('robots_noai', 'robots_noai', t('site.robots_noai'), t('site.robots_noai_hint'))}
        </fieldset>
        <fieldset>
          <legend>{t('site.federation')}</legend>
          {check('authorized_fetch', 'authorized_fetch', t('site.authorized_fetch'), t('site.authorized_fetch_hint'))}
          {check('allow_quotes', 'allow_quotes', t('site.allow_quotes'), t('site.allow_quotes_hint'))}
        </fieldset>

        {pub && (
          <>
            <h2>{t('site.blog')}</h2>
            <GroupError message={placed.at('publication')} />
            {text('site_name', 'publication.site_name', t('site.site_name'), SITE_LIMITS.site_name, { hint: t('site.site_name_hint') })}
            {text('subtitle', 'publication.subtitle', t('site.subtitle'), SITE_LIMITS.subtitle, { hint: t('site.subtitle_hint') })}
            {text('author', 'publication.author', t('site.author'), SITE_LIMITS.author, { hint: t('site.author_hint') })}
            {text('introduction', 'publication.introduction', t('site.introduction'), SITE_LIMITS.introduction, { area: true, hint: t('site.introduction_hint') })}

            <fieldset>
              <legend>{t('site.layout')}</legend>
              {(['show_service_header', 'show_site_name', 'show_pagination', 'show_side_profile'] as const).map((k) => (
                <div key={k}>{check(k, 'publication.' + k, t(`site.${k}`), k === 'show_pagination' ? t('site.show_pagination_hint') : undefined)}</div>
              ))}
              <div class="site-counts">
                {count('show_side_recent', t('site.show_side_recent'))}
                {count('show_side_popular', t('site.show_side_popular'))}
              </div>
            </fieldset>

            <h2>{t('site.extensions')}</h2>
            <GroupError message={placed.at('publication.extensions')} />
            <fieldset aria-describedby="site-share-hint">
              <legend>{t('site.share')}</legend>
              <p class="hint" id="site-share-hint">
                {t('site.share_hint')}
              </p>
              {[...SHARE_IDS, ...kept].map((id) => (
                <Check
                  key={id}
                  label={id in SHARE_LABELS ? t(SHARE_LABELS[id as keyof typeof SHARE_LABELS]) : <code>{id}</code>}
                  hint={id in SHARE_LABELS ? undefined : t('site.share_unknown')}
                  checked={form.ext.share.includes(id)}
                  onChange={(v) => editExt({ share: toggleShare(form.ext.share, id, v) })}
                />
              ))}
              <GroupError message={placed.at('publication.extensions.shareButtons')} />
            </fieldset>
            {/* Comments are a later issue's: until then the mode is only kept. */}
            <fieldset aria-describedby="site-comments-later">
              <legend>{t('site.comments')}</legend>
              <p class="hint notice" id="site-comments-later">
                {t('site.comments_later')}
              </p>
              {COMMENT_MODES.map((m) => (
                <div class="check" key={m}>
                  <input
                    type="radio"
                    id={'site-comments-' + m}
                    name="site-comments"
                    value={m}
                    checked={form.ext.comments === m}
                    aria-describedby={'site-comments-' + m + '-hint'}
                    onChange={() => editExt({ comments: m })}
                  />
                  <label for={'site-comments-' + m}>{t(MODE_LABELS[m])}</label>
                  <p class="hint" id={'site-comments-' + m + '-hint'}>
                    {t(`${MODE_LABELS[m]}_hint`)}
                  </p>
                </div>
              ))}
              <GroupError message={placed.at('publication.extensions.comments')} />
            </fieldset>
            <Field
              label={t('site.measurement_id')}
              hint={t('site.measurement_id_hint')}
              error={errorOf(probs, placed, 'publication.extensions.analytics.googleAnalytics.measurementId', 'publication.extensions.analytics')}
              aside={<Counter value={form.ext.measurementId.trim()} max={SITE_LIMITS.measurement_id} />}
            >
              <input
                type="text"
                autoComplete="off"
                spellcheck={false}
                placeholder="G-XXXXXXXXXX"
                value={form.ext.measurementId}
                onInput={(e) => editExt({ measurementId: e.currentTarget.value })}
              />
            </Field>
          </>
        )}

        {placed.unplaced !== null && <ErrorBox error={placed.unplaced} />}
        <div class="actions">
          <Button type="submit" variant="primary" busy={save.busy} disabled={blocked}>
            {t('site.save')}
          </Button>
          <span role="status">{save.done ? t('site.saved') : placed.placed ? t('site.not_saved') : blocked ? t('site.fix_first') : ''}</span>
        </div>
      </form>
    </Page>
  );
}

/** The form's own refusal of a control, else the server's (at `control`, by default the path itself). */
function errorOf(probs: SiteProblems, placed: Placed, path: string, control: string = path): string | undefined {
  const p = probs[path];
  if (p === 'long') return t('site.too_long');
  if (p === 'count') return t('site.count_invalid', { max: SITE_LIMITS.side });
  return placed.at(control);
}
