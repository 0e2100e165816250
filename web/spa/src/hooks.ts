import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { t } from './i18n';
import { call, RPCError } from './rpc';

export interface RPCState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Calls `method` when mounted and whenever `deps` change; aborts the call in
 * flight when they change again or the component goes away. `params` null
 * skips the call (e.g. until an id is known).
 */
export function useRPC<T>(method: string, params: object | null | undefined, deps: readonly unknown[]): RPCState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(params !== null);
  const [version, setVersion] = useState(0);
  const paramsRef = useRef(params);
  paramsRef.current = params;

  useEffect(() => {
    const p = paramsRef.current;
    if (p === null) {
      setLoading(false);
      return;
    }
    const ctrl = new AbortController();
    setLoading(true);
    setError(null);
    call<T>(method, p, { signal: ctrl.signal }).then(
      (r) => {
        if (ctrl.signal.aborted) return;
        setData(r);
        setLoading(false);
      },
      (err) => {
        if (ctrl.signal.aborted || (err instanceof RPCError && err.dataCode === 'aborted')) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => ctrl.abort();
  }, [method, version, ...deps]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload };
}

/** Runs `fn` now and every `ms` while the page is visible; again at once when it becomes visible. */
export function usePoll(fn: () => unknown, ms: number, enabled = true): void {
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setInterval> | null = null;
    const run = () => void fnRef.current();
    const start = () => {
      if (timer !== null) return;
      run();
      timer = setInterval(run, ms);
    };
    const stop = () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    };
    const onVis = () => (document.visibilityState === 'visible' ? start() : stop());
    onVis();
    document.addEventListener('visibilitychange', onVis);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVis);
    };
  }, [ms, enabled]);
}

export const TICK_MS = 5000;

/**
 * Calls queue.tick every 5 s while mounted and visible: under CGI a request
 * is what starts the worker, so a screen that shows deliveries, the timeline
 * or notifications keeps the queue moving (docs/api.md, queue.tick).
 */
export function useTick(): void {
  usePoll(() => call('queue.tick', {}).catch(() => undefined), TICK_MS);
}

/** site.info (design.md): who is asking, and the server's limits. */
export interface SiteInfo {
  version: string;
  domain: string;
  /** The site's name as its pages show it (the blog at / : its site name, else the display name). */
  name?: string;
  owner: boolean;
  totp_enabled?: boolean;
  limits: {
    note_chars: number;
    article_chars: number;
    title_chars: number;
    summary_chars: number;
    fields: number;
    field_name_chars: number;
    field_value_chars: number;
    display_name_chars: number;
    bio_chars: number;
  };
  themes: string[];
}

export interface SiteState {
  info: SiteInfo | null;
  /** Asks site.info again (after login, or after a change such as enabling two-factor). */
  reload: () => Promise<void>;
  /** Screens that change the unread count (Notifications) ask the shell to count again. */
  refreshUnread: () => void;
}

export const SiteContext = createContext<SiteState>({
  info: null,
  reload: async () => undefined,
  refreshUnread: () => undefined,
});

export function useSite(): SiteState {
  return useContext(SiteContext);
}

/** What the app calls the site: its name, else its domain, else "murlog" (before site.info answered). */
export function siteName(info: SiteInfo | null | undefined): string {
  return info?.name?.trim() || info?.domain || t('app.name');
}
