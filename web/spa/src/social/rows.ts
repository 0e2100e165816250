// Actions on the rows of a paged list (unfollow, remove, approve, unblock):
// the list keeps its loaded pages and scroll position, and each row shows
// what was done to it instead of the list being reloaded.
import { useState } from 'preact/hooks';

export interface RowActions<D extends string> {
  /** The row whose action runs. */
  busy: string | null;
  /** The row asking "are you sure?". */
  confirming: string | null;
  error: unknown;
  /** The rows done with, and what was done. */
  done: ReadonlyMap<string, D>;
  ask: (key: string | null) => void;
  run: (key: string, result: D, fn: () => Promise<unknown>) => Promise<boolean>;
  /** Forgets what was done (the list was reloaded). */
  reset: () => void;
}

export function useRowActions<D extends string>(): RowActions<D> {
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<ReadonlyMap<string, D>>(new Map());
  const run = async (key: string, result: D, fn: () => Promise<unknown>) => {
    setBusy(key);
    setError(null);
    try {
      await fn();
      setDone((m) => new Map(m).set(key, result));
      setConfirming(null);
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(null);
    }
  };
  return {
    busy,
    confirming,
    error,
    done,
    ask: (key) => {
      setConfirming(key);
      if (key) setError(null);
    },
    run,
    reset: () => {
      setDone(new Map());
      setConfirming(null);
      setError(null);
    },
  };
}
