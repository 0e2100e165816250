// A like or boost button's state: it flips at once (the server queues the
// activity, so the answer is quick but not instant) and flips back, with the
// error shown, when the server refuses.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Toggle {
  on: boolean;
  busy: boolean;
  error: unknown;
  toggle: () => Promise<void>;
}

/**
 * Runs `set(next)` for the flipped state; on failure the state goes back to
 * what it was. Exported alone so the rollback can be tested without a DOM.
 */
export async function flip(
  current: boolean,
  set: (next: boolean) => Promise<unknown>,
  show: (state: boolean) => void,
): Promise<unknown> {
  show(!current);
  try {
    await set(!current);
    return null;
  } catch (err) {
    show(current);
    return err;
  }
}

export function useToggle(initial: boolean, set: (next: boolean) => Promise<unknown>): Toggle {
  const [on, setOn] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  // A reload that brings a new server state wins over the local one.
  useEffect(() => setOn(initial), [initial]);
  const toggle = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    const err = await flip(on, set, (s) => live.current && setOn(s));
    if (!live.current) return;
    setBusy(false);
    setError(err);
  };
  return { on, busy, error, toggle };
}
