import { describe, expect, it } from 'vitest';
import { setLang } from '../i18n';
import { RPCError } from '../rpc';
import { chars, controlFor, fieldMessage, placeError, within } from './errors';
import { SITE_CONTROLS } from './site';

const invalid = (field: string, msg: string) => new RPCError(-32602, `${field}: ${msg}`, 'invalid', field);

describe('server field paths', () => {
  it('lie within a control only at a path boundary', () => {
    expect(within('publication.extensions.shareButtons[2]', 'publication.extensions.shareButtons')).toBe(true);
    expect(within('publication.extensions.shareButtons[2]', 'publication.extensions')).toBe(true);
    expect(within('publication.site_name', 'publication.site_name')).toBe(true);
    expect(within('publication.site_names', 'publication.site_name')).toBe(false);
    expect(within('title', 'publication.title')).toBe(false);
  });

  it('go to the control with the longest containing path', () => {
    // the exact fields the server names (api/publication_test.go)
    const cases: [string, string | null][] = [
      ['publication.extensions.shareButtons[2]', 'publication.extensions.shareButtons'],
      ['publication.extensions.shareButtons[0]', 'publication.extensions.shareButtons'],
      ['publication.extensions.comments.mode', 'publication.extensions.comments'],
      ['publication.extensions.analytics', 'publication.extensions.analytics'],
      ['publication.extensions.analytics.googleAnalytics.measurementId', 'publication.extensions.analytics'],
      ['publication.extensions', 'publication.extensions'],
      ['publication.extensions.a.a.a.a.a.a.a.a', 'publication.extensions'],
      ['publication.site_name', 'publication.site_name'],
      ['publication.show_side_recent', 'publication.show_side_recent'],
      ['publication.site_nme', 'publication'],
      ['publication', 'publication'],
      ['language', 'language'],
      // the theme picker shows its own; persona_id has no control
      ['publication.design_theme', 'publication'],
      ['persona_id', null],
    ];
    for (const [field, want] of cases) expect(controlFor(field, SITE_CONTROLS), field).toBe(want);
    expect(controlFor(undefined, SITE_CONTROLS)).toBeNull();
  });
});

describe('placeError', () => {
  it('puts an invalid field at its control, without the path prefix', () => {
    const p = placeError(invalid('publication.subtitle', 'must be at most 50 characters'), SITE_CONTROLS);
    expect(p.placed).toBe(true);
    expect(p.unplaced).toBeNull();
    expect(p.at('publication.subtitle')).toBe('must be at most 50 characters');
    expect(p.at('publication.site_name')).toBeUndefined();
  });

  it('leaves other errors to the form', () => {
    setLang('en');
    const busy = new RPCError(-32005, 'database busy', 'unavailable');
    const p = placeError(busy, SITE_CONTROLS);
    expect(p.placed).toBe(false);
    expect(p.unplaced).toBe(busy);
    expect(p.at('title')).toBeUndefined();
    const nowhere = invalid('persona_id', 'is not a valid id');
    expect(placeError(nowhere, SITE_CONTROLS).unplaced).toBe(nowhere);
    expect(placeError(null, SITE_CONTROLS).unplaced).toBeNull();
  });

  it('keeps a message that does not start with the path, and translates one with none', () => {
    setLang('en');
    expect(fieldMessage(new RPCError(-32602, 'at most 4 fields', 'invalid', 'fields'))).toBe('at most 4 fields');
    expect(fieldMessage(new RPCError(-32602, '', 'invalid', 'fields'))).toBe('Something in the form is not accepted.');
  });
});

describe('chars', () => {
  it('counts code points as the server does', () => {
    expect(chars('名前')).toBe(2);
    expect(chars('😀a')).toBe(2);
    expect('😀a'.length).toBe(3);
  });
});
