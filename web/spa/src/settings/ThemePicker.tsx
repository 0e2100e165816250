// The theme picker: the installed themes (site.get_settings'
// publication.themes) as radio buttons, the chosen one's post page in a
// live preview (design.md: GET /my/preview/{theme}, framable by /my/ only),
// and "apply", which saves publication.design_theme alone. A theme changes
// every page, so once applied the picker says they are being rendered again
// and links to Controls, which shows the progress.
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n';
import { call } from '../rpc';
import { Link } from '../router';
import { Button, Empty, ErrorBox } from '../ui/basic';
import { placeError } from './errors';
import { useSave } from './useSave';
import { buildThemeUpdate, currentTheme, previewURL, type Publication, type Settings } from './site';

export function ThemePicker({ publication, personaId, onApplied }: {
  publication: Publication;
  personaId?: string | undefined;
  onApplied: (s: Settings) => void;
}) {
  const inUse = currentTheme(publication);
  const [selected, setSelected] = useState(inUse);
  const save = useSave<Settings>();
  useEffect(() => setSelected(currentTheme(publication)), [publication.persona_id]);

  const themes = publication.themes ?? [];
  const placed = placeError(save.error, ['publication.design_theme']);
  const src = previewURL(selected);

  const apply = () => void save.run(() => call<Settings>('site.update_settings', buildThemeUpdate(selected, personaId)), onApplied);

  return (
    <section class="theme-picker" aria-labelledby="site-theme-heading">
      <h2 id="site-theme-heading">{t('site.theme')}</h2>
      {themes.length === 0 ? (
        <Empty>{t('site.no_themes')}</Empty>
      ) : (
        <>
          <fieldset class={placed.at('publication.design_theme') ? 'invalid' : undefined}>
            <legend>{t('site.theme_choose')}</legend>
            <div class="theme-list">
              {themes.map((name) => (
                <div class="check" key={name}>
                  <input
                    type="radio"
                    name="site-theme"
                    id={'site-theme-' + name}
                    value={name}
                    checked={selected === name}
                    onChange={() => {
                      setSelected(name);
                      save.edited();
                    }}
                  />
                  <label for={'site-theme-' + name}>
                    {name}
                    {name === inUse && <span class="muted"> {t('site.theme_in_use')}</span>}
                  </label>
                </div>
              ))}
            </div>
            {placed.at('publication.design_theme') && (
              <p class="field-error" role="alert">
                {t('ui.field_error', { message: placed.at('publication.design_theme')! })}
              </p>
            )}
          </fieldset>
          {src && (
            <div class="theme-preview">
              <iframe src={src} title={t('site.preview_title', { theme: selected })} loading="lazy" referrerpolicy="same-origin" />
              <a href={src} target="_blank" rel="noopener">
                {t('site.preview_open')}
              </a>
            </div>
          )}
          {placed.unplaced !== null && <ErrorBox error={placed.unplaced} />}
          <div class="actions">
            <Button variant="primary" busy={save.busy} disabled={selected === inUse} onClick={apply}>
              {t('site.theme_apply', { theme: selected })}
            </Button>
            <span role="status">{save.done ? t('site.theme_applied', { theme: inUse }) : ''}</span>
          </div>
          {save.done && (
            <p class="hint theme-rebuilding">
              {t('site.theme_rebuilding')} <Link href="/controls">{t('site.theme_rebuilding_link')}</Link>
            </p>
          )}
        </>
      )}
    </section>
  );
}
