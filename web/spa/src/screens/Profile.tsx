// The owner's profile: display name, bio, up to four custom fields and the
// follow settings (personas.get / personas.update, docs/api.md "personas").
// Lengths come from site.info; the server's own refusals are shown next to
// the field they name.
import { useEffect, useState } from 'preact/hooks';
import { useRPC, useSite } from '../hooks';
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { call } from '../rpc';
import { Counter } from '../settings/Counter';
import { placeError } from '../settings/errors';
import { useSave } from '../settings/useSave';
import {
  addField,
  buildUpdate,
  formFromPersona,
  hasProblems,
  moveField,
  problems,
  PROFILE_CONTROLS,
  profileLimits,
  refusedRow,
  removeField,
  setField,
  type Persona,
  type ProfileForm,
} from '../settings/profile';
import '../settings/profile.css';
import { Button, Check, ErrorBox, Field, Loading, Page } from '../ui/basic';

const ROW_PROBLEM = {
  name: 'profile.field_name_required',
  name_long: 'profile.field_name_long',
  value_long: 'profile.field_value_long',
} as const;

export default function Profile(_props: ScreenProps) {
  const { info } = useSite();
  const limits = profileLimits(info);
  const persona = useRPC<Persona>('personas.get', {}, []);
  const [form, setForm] = useState<ProfileForm | null>(null);
  const save = useSave<Persona>();
  const error = save.error;
  const [sentRows, setSentRows] = useState<number[]>([]);
  const [focus, setFocus] = useState<string | null>(null);

  useEffect(() => {
    if (persona.data) setForm(formFromPersona(persona.data));
  }, [persona.data]);

  // After a row moves or goes away, keep the keyboard where the owner was.
  useEffect(() => {
    if (focus === null) return;
    document.getElementById(focus)?.focus();
    setFocus(null);
  }, [focus]);

  // A refused save moves focus to the control that says why.
  useEffect(() => {
    if (error) (document.querySelector('.profile-form [aria-invalid="true"]') as HTMLElement | null)?.focus();
  }, [error]);

  if (persona.loading && !persona.data) return <Page title={t('profile.title')}><Loading /></Page>;
  if (persona.error && !persona.data) {
    return (
      <Page title={t('profile.title')}>
        <ErrorBox error={persona.error} onRetry={persona.reload} />
      </Page>
    );
  }
  if (!form || !persona.data) return <Page title={t('profile.title')}><Loading /></Page>;
  const p = persona.data;

  const edit = (change: Partial<ProfileForm>) => {
    setForm({ ...form, ...change });
    save.edited();
  };
  const probs = problems(form, limits);
  const placed = placeError(error, PROFILE_CONTROLS);
  const badRow = placed.at('fields') ? refusedRow(error, sentRows) : null;

  const submit = (e: Event) => {
    e.preventDefault();
    if (hasProblems(probs)) return;
    const { params, rows } = buildUpdate(p.id, form);
    setSentRows(rows);
    void save.run(() => call<Persona>('personas.update', params), (updated) => setForm(formFromPersona(updated)));
  };

  const full = form.fields.length >= limits.fields;
  return (
    <Page title={t('profile.title')}>
      <p class="muted">
        {t('profile.acct', { acct: p.acct })}{' '}
        {p.url && <a href={p.url}>{t('profile.view_public')}</a>}
      </p>
      <form class="profile-form" onSubmit={submit} noValidate>
        <Field
          label={t('profile.display_name')}
          error={probs.display_name ? t('profile.too_long') : placed.at('display_name')}
          aside={<Counter value={form.display_name} max={limits.display_name} />}
        >
          <input type="text" value={form.display_name} autoComplete="nickname" onInput={(e) => edit({ display_name: e.currentTarget.value })} />
        </Field>
        <Field
          label={t('profile.summary')}
          hint={t('profile.summary_hint')}
          error={probs.summary ? t('profile.too_long') : placed.at('summary')}
          aside={<Counter value={form.summary} max={limits.summary} />}
        >
          <textarea rows={5} value={form.summary} onInput={(e) => edit({ summary: e.currentTarget.value })} />
        </Field>

        <fieldset class="profile-fields" aria-describedby="profile-fields-hint">
          <legend>{t('profile.fields')}</legend>
          <p class="hint" id="profile-fields-hint">
            {t('profile.fields_hint', { max: limits.fields })}
          </p>
          {placed.at('fields') && badRow === null && (
            <p class="field-error" role="alert">
              {t('ui.field_error', { message: placed.at('fields')! })}
            </p>
          )}
          {form.fields.length === 0 && <p class="empty">{t('profile.no_fields')}</p>}
          {form.fields.map((f, i) => {
            const n = i + 1;
            const rowProblem = probs.rows?.[i];
            const serverError = badRow === i ? placed.at('fields') : undefined;
            return (
              <fieldset class="profile-field" key={i}>
                <legend>{t('profile.field_n', { n })}</legend>
                <Field
                  label={t('profile.field_name')}
                  error={rowProblem === 'name' || rowProblem === 'name_long' ? t(ROW_PROBLEM[rowProblem]) : serverError}
                  aside={<Counter value={f.name} max={limits.field_name} />}
                >
                  <input type="text" id={`pf-${i}-name`} value={f.name} onInput={(e) => edit({ fields: setField(form.fields, i, 'name', e.currentTarget.value) })} />
                </Field>
                <Field
                  label={t('profile.field_value')}
                  error={rowProblem === 'value_long' ? t(ROW_PROBLEM.value_long) : undefined}
                  aside={<Counter value={f.value} max={limits.field_value} />}
                >
                  <input type="text" id={`pf-${i}-value`} value={f.value} onInput={(e) => edit({ fields: setField(form.fields, i, 'value', e.currentTarget.value) })} />
                </Field>
                <div class="actions">
                  <Button
                    id={`pf-${i}-up`}
                    disabled={i === 0}
                    aria-label={t('profile.move_up', { n })}
                    onClick={() => {
                      edit({ fields: moveField(form.fields, i, -1) });
                      setFocus(i - 1 === 0 ? `pf-${i - 1}-down` : `pf-${i - 1}-up`);
                    }}
                  >
                    {t('profile.up')}
                  </Button>
                  <Button
                    id={`pf-${i}-down`}
                    disabled={i === form.fields.length - 1}
                    aria-label={t('profile.move_down', { n })}
                    onClick={() => {
                      edit({ fields: moveField(form.fields, i, 1) });
                      setFocus(i + 1 === form.fields.length - 1 ? `pf-${i + 1}-up` : `pf-${i + 1}-down`);
                    }}
                  >
                    {t('profile.down')}
                  </Button>
                  <Button
                    variant="plain"
                    aria-label={t('profile.remove_n', { n })}
                    onClick={() => {
                      edit({ fields: removeField(form.fields, i) });
                      setFocus('pf-add');
                    }}
                  >
                    {t('profile.remove')}
                  </Button>
                </div>
              </fieldset>
            );
          })}
          <Button
            id="pf-add"
            disabled={full}
            onClick={() => {
              edit({ fields: addField(form.fields, limits.fields) });
              setFocus(`pf-${form.fields.length}-name`);
            }}
          >
            {t('profile.add_field')}
          </Button>
          {full && <p class="hint">{t('profile.fields_full', { max: limits.fields })}</p>}
        </fieldset>

        <fieldset>
          <legend>{t('profile.follows')}</legend>
          <Check label={t('profile.locked')} hint={t('profile.locked_hint')} checked={form.locked} onChange={(v) => edit({ locked: v })} />
          <Check label={t('profile.show_follows')} hint={t('profile.show_follows_hint')} checked={form.show_follows} onChange={(v) => edit({ show_follows: v })} />
          <Check label={t('profile.discoverable')} hint={t('profile.discoverable_hint')} checked={form.discoverable} onChange={(v) => edit({ discoverable: v })} />
          {(['locked', 'show_follows', 'discoverable'] as const).map((c) =>
            placed.at(c) ? (
              <p class="field-error" key={c}>
                {t('ui.field_error', { message: placed.at(c)! })}
              </p>
            ) : null,
          )}
        </fieldset>

        {placed.unplaced !== null && <ErrorBox error={placed.unplaced} />}
        <div class="actions">
          <Button type="submit" variant="primary" busy={save.busy} disabled={hasProblems(probs)}>
            {t('profile.save')}
          </Button>
          <span role="status">{save.done ? t('profile.saved') : placed.placed ? t('profile.not_saved') : ''}</span>
        </div>
      </form>
    </Page>
  );
}
