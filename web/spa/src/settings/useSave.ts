import { useCallback, useState } from 'preact/hooks';

export interface SaveState<T> {
  busy: boolean;
  /** The last attempt's failure, until the next attempt or reset(). */
  error: unknown;
  /** The last attempt succeeded and nothing was edited since (see edited()). */
  done: boolean;
  /** Runs one save: `send` calls the server, `apply` takes its answer. */
  run: (send: () => Promise<T>, apply: (result: T) => void) => Promise<void>;
  /** The owner changed the form: "saved" no longer holds. */
  edited: () => void;
  reset: () => void;
}

/** The busy / failed / saved state of a form's save button. */
export function useSave<T>(): SaveState<T> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const run = useCallback(async (send: () => Promise<T>, apply: (result: T) => void) => {
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      apply(await send());
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }, []);
  const edited = useCallback(() => setDone(false), []);
  const reset = useCallback(() => {
    setError(null);
    setDone(false);
  }, []);
  return { busy, error, done, run, edited, reset };
}
