// A value that components can follow: the language, the location, whether
// the network is down, whether a new version is ready. set() tells every
// subscriber when the value changes; useStore() re-renders the caller.
import { useEffect, useState } from 'preact/hooks';

export interface Store<T> {
  get: () => T;
  set: (v: T) => void;
  subscribe: (fn: (v: T) => void) => () => void;
}

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<(v: T) => void>();
  return {
    get: () => value,
    set: (v) => {
      if (Object.is(v, value)) return;
      value = v;
      for (const fn of listeners) fn(v);
    },
    subscribe: (fn) => {
      listeners.add(fn);
      return () => {
        listeners.delete(fn);
      };
    },
  };
}

export function useStore<T>(store: Store<T>): T {
  const [v, set] = useState(store.get);
  useEffect(() => {
    set(() => store.get()); // it may have changed between render and effect
    return store.subscribe((x) => set(() => x));
  }, [store]);
  return v;
}
