// "12 / 50" beside a field's label: characters as the server counts them
// (code points), marked when over. The forms disable saving while one is over.
import { chars } from './errors';

export function Counter({ value, max }: { value: string; max: number | undefined }) {
  if (max === undefined) return null;
  const n = chars(value);
  return (
    <span class={n > max ? 'counter over' : 'counter'}>
      {n} / {max}
    </span>
  );
}
