// The profile form's model: personas.get's persona in, personas.update's
// params out (docs/api.md "personas"). Lengths come from site.info's limits,
// which are the constants the server's validators use.
import type { SiteInfo } from '../hooks';
import { RPCError } from '../rpc';
import { chars } from './errors';

export interface ProfileField {
  name: string;
  value: string;
}

/** The parts of a persona (personas.get) the profile screen reads. */
export interface Persona {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  summary: string;
  fields: ProfileField[] | null;
  locked: boolean;
  show_follows: boolean;
  discoverable: boolean;
  primary: boolean;
  url: string;
}

export interface ProfileForm {
  display_name: string;
  summary: string;
  fields: ProfileField[];
  locked: boolean;
  show_follows: boolean;
  discoverable: boolean;
}

/** The params the form's controls edit, for placing the server's refusals. */
export const PROFILE_CONTROLS = ['display_name', 'summary', 'fields', 'locked', 'show_follows', 'discoverable'] as const;

/** murlog.MaxPersonaFields, for a server whose site.info does not say. */
export const DEFAULT_MAX_FIELDS = 4;

export interface ProfileLimits {
  fields: number;
  display_name?: number;
  summary?: number;
  field_name?: number;
  field_value?: number;
}

const positive = (n: unknown): number | undefined => (typeof n === 'number' && n > 0 ? n : undefined);

export function profileLimits(info: SiteInfo | null): ProfileLimits {
  const l: Partial<SiteInfo['limits']> = info?.limits ?? {};
  const out: ProfileLimits = { fields: positive(l.fields) ?? DEFAULT_MAX_FIELDS };
  const set = (k: Exclude<keyof ProfileLimits, 'fields'>, v: unknown) => {
    const n = positive(v);
    if (n !== undefined) out[k] = n;
  };
  set('display_name', l.display_name_chars);
  set('summary', l.bio_chars);
  set('field_name', l.field_name_chars);
  set('field_value', l.field_value_chars);
  return out;
}

export function formFromPersona(p: Persona): ProfileForm {
  return {
    display_name: p.display_name,
    summary: p.summary,
    fields: (p.fields ?? []).map((f) => ({ name: f.name, value: f.value })),
    locked: p.locked,
    show_follows: p.show_follows,
    discoverable: p.discoverable,
  };
}

/** One more empty row, unless the list is full. */
export function addField(fields: readonly ProfileField[], max: number): ProfileField[] {
  return fields.length >= max ? [...fields] : [...fields, { name: '', value: '' }];
}

export function removeField(fields: readonly ProfileField[], i: number): ProfileField[] {
  return fields.filter((_, j) => j !== i);
}

/** Moves row i up (-1) or down (+1); at either end nothing moves. */
export function moveField(fields: readonly ProfileField[], i: number, by: -1 | 1): ProfileField[] {
  const j = i + by;
  const out = [...fields];
  if (i < 0 || i >= out.length || j < 0 || j >= out.length) return out;
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

export function setField(fields: readonly ProfileField[], i: number, part: keyof ProfileField, v: string): ProfileField[] {
  return fields.map((f, j) => (j === i ? { ...f, [part]: v } : f));
}

const blank = (f: ProfileField) => f.name.trim() === '' && f.value.trim() === '';

export interface ProfileUpdate {
  params: Record<string, unknown>;
  /** The form row of each sent field: rows left blank are not sent, so the server's "field 2" may be row 3. */
  rows: number[];
}

/** personas.update's params: every setting (fields replace all), blank rows left out. */
export function buildUpdate(id: string, form: ProfileForm): ProfileUpdate {
  const rows: number[] = [];
  const fields: ProfileField[] = [];
  form.fields.forEach((f, i) => {
    if (blank(f)) return;
    rows.push(i);
    fields.push({ name: f.name, value: f.value });
  });
  return {
    params: {
      id,
      display_name: form.display_name,
      summary: form.summary,
      fields,
      locked: form.locked,
      show_follows: form.show_follows,
      discoverable: form.discoverable,
    },
    rows,
  };
}

/** What the form refuses before asking the server, by control. */
export type Problems = Partial<Record<'display_name' | 'summary' | 'fields', string>> & { rows?: Record<number, 'name' | 'name_long' | 'value_long'> };

export function problems(form: ProfileForm, limits: ProfileLimits): Problems {
  const p: Problems = {};
  if (limits.display_name !== undefined && chars(form.display_name) > limits.display_name) p.display_name = 'long';
  if (limits.summary !== undefined && chars(form.summary) > limits.summary) p.summary = 'long';
  if (form.fields.length > limits.fields) p.fields = 'many';
  form.fields.forEach((f, i) => {
    let what: 'name' | 'name_long' | 'value_long' | undefined;
    if (!blank(f) && f.name.trim() === '') what = 'name';
    else if (limits.field_name !== undefined && chars(f.name) > limits.field_name) what = 'name_long';
    else if (limits.field_value !== undefined && chars(f.value) > limits.field_value) what = 'value_long';
    if (what) (p.rows ??= {})[i] = what;
  });
  return p;
}

export function hasProblems(p: Problems): boolean {
  return Boolean(p.display_name || p.summary || p.fields || (p.rows && Object.keys(p.rows).length));
}

/**
 * The form row a refused "fields" error is about: the server says
 * "field 2 needs a name" (1-based, of the fields sent) or names the place
 * ("fields[1].name", 0-based). Null when it is about the list as a whole.
 */
export function refusedRow(err: unknown, rows: readonly number[]): number | null {
  if (!(err instanceof RPCError) || !err.field) return null;
  let sent: number | null = null;
  const byPath = /^fields\[(\d+)\]/.exec(err.field);
  if (byPath) sent = Number(byPath[1]);
  else if (err.field === 'fields') {
    const byText = /\bfield (\d+)\b/.exec(err.message);
    if (byText) sent = Number(byText[1]) - 1;
  }
  if (sent === null || sent < 0 || sent >= rows.length) return null;
  return rows[sent]!;
}
