import { describe, expect, it } from 'vitest';
import type { SiteInfo } from '../hooks';
import { RPCError } from '../rpc';
import { addField, buildUpdate, DEFAULT_MAX_FIELDS, moveField, problems, profileLimits, refusedRow, removeField, setField, type ProfileForm } from './profile';

const form = (fields: { name: string; value: string }[]): ProfileForm => ({
  display_name: 'Alice', summary: '', fields, locked: false, show_follows: true, discoverable: true,
});
const f = (name: string, value = 'v') => ({ name, value });

describe('profile fields', () => {
  it('add rows up to the limit and no more', () => {
    let fields: { name: string; value: string }[] = [];
    for (let i = 0; i < 6; i++) fields = addField(fields, 4);
    expect(fields).toHaveLength(4);
    expect(fields.every((x) => x.name === '' && x.value === '')).toBe(true);
    expect(addField([f('a')], 1)).toEqual([f('a')]);
  });

  it('move, edit and remove rows without touching the others', () => {
    const fs = [f('a'), f('b'), f('c')];
    expect(moveField(fs, 0, 1).map((x) => x.name)).toEqual(['b', 'a', 'c']);
    expect(moveField(fs, 2, -1).map((x) => x.name)).toEqual(['a', 'c', 'b']);
    expect(moveField(fs, 0, -1)).toEqual(fs);
    expect(moveField(fs, 2, 1)).toEqual(fs);
    expect(removeField(fs, 1).map((x) => x.name)).toEqual(['a', 'c']);
    expect(setField(fs, 1, 'value', 'new')[1]).toEqual({ name: 'b', value: 'new' });
    expect(fs[1]).toEqual(f('b'));
  });

  it('send every setting and the non-blank rows, remembering which row each is', () => {
    const u = buildUpdate('p1', form([f('a'), f(' ', ''), f('c', 'https://c.example')]));
    expect(u.params).toEqual({
      id: 'p1', display_name: 'Alice', summary: '', locked: false, show_follows: true, discoverable: true,
      fields: [f('a'), f('c', 'https://c.example')],
    });
    expect(u.rows).toEqual([0, 2]);
    expect(buildUpdate('p1', form([])).params.fields).toEqual([]);
  });

  it('map the server\'s "field N" back to the form row', () => {
    const rows = [0, 2, 3];
    const byText = new RPCError(-32602, 'fields: field 2 needs a name', 'invalid', 'fields');
    expect(refusedRow(byText, rows)).toBe(2);
    const byPath = new RPCError(-32602, 'fields[2].name: must be a string', 'invalid', 'fields[2].name');
    expect(refusedRow(byPath, rows)).toBe(3);
    expect(refusedRow(new RPCError(-32602, 'fields: at most 4 fields', 'invalid', 'fields'), rows)).toBeNull();
    expect(refusedRow(new RPCError(-32602, 'fields: field 9 needs a name', 'invalid', 'fields'), rows)).toBeNull();
    expect(refusedRow(new RPCError(-32602, 'summary: too long', 'invalid', 'summary'), rows)).toBeNull();
  });
});

describe('profile limits', () => {
  const info = { limits: { fields: 3, display_name_chars: 5, bio_chars: 10, field_name_chars: 3, field_value_chars: 4 } } as unknown as SiteInfo;

  it('come from site.info, with 4 fields when it does not say', () => {
    expect(profileLimits(info)).toEqual({ fields: 3, display_name: 5, summary: 10, field_name: 3, field_value: 4 });
    expect(profileLimits({ limits: {} } as unknown as SiteInfo)).toEqual({ fields: DEFAULT_MAX_FIELDS });
    expect(profileLimits(null)).toEqual({ fields: 4 });
  });

  it('refuse what the server would, counting code points', () => {
    const l = profileLimits(info);
    expect(problems({ ...form([]), display_name: '名前名前名' }, l)).toEqual({});
    expect(problems({ ...form([]), display_name: '名前名前名前' }, l)).toEqual({ display_name: 'long' });
    expect(problems(form([f('', 'x'), f('abcd'), f('a', '12345'), f('', '')]), l).rows).toEqual({ 0: 'name', 1: 'name_long', 2: 'value_long' });
    expect(problems(form([f('a'), f('b'), f('c'), f('d')]), l).fields).toBe('many');
    expect(problems(form([f('😀😀😀', '😀😀😀😀')]), l)).toEqual({});
  });
});
