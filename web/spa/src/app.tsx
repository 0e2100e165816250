// The shell: header, nav, banners, and the current route's screen. It asks
// site.info whether the visitor is the owner and sends everyone else (and an
// owner whose session ended) to the login screen, remembering where they were.
// While the owner's lockdown is active, a banner on every screen says so.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { controlsStore, loadControls, type Controls } from './controls';
import { SiteContext, siteName, usePoll, type SiteInfo, type SiteState } from './hooks';
import { LANG_NAMES, LANGS, setLang, t, useLang, type Lang } from './i18n';
import { useUpdateReady } from './pwa';
import { currentAppPath, findRoute as matchRoute, Link, navigate, useLocation } from './router';
import { notFound, navRoutes, routes } from './routes';
import { call, isNetworkDown, onLocked, onUnauthorized, subscribeNetwork } from './rpc';
import { useStore } from './store';
import { ErrorBox, fullTime, Loading } from './ui/basic';

export const UNREAD_POLL_MS = 30_000;

/** Where to go after login: an app path from ?next=, never another site or the login screen. */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next === '/login' || next.startsWith('/login?')) return '/';
  return next;
}

function useOffline(): boolean {
  const [netDown, setNetDown] = useState(isNetworkDown());
  const [online, setOnline] = useState(typeof navigator === 'undefined' ? true : navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    const unsub = subscribeNetwork(setNetDown);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
      unsub();
    };
  }, []);
  return netDown || !online;
}

/**
 * The controls as the shell knows them: read once the owner is known, again
 * when a call is refused as locked, and when a scheduled lockdown's from or
 * until comes (the server decides whether it is active).
 */
function useControls(owner: boolean): Controls | null {
  const controls = useStore(controlsStore);
  useEffect(() => {
    if (!owner) return;
    void loadControls();
    onLocked(() => void loadControls());
    return () => onLocked(null);
  }, [owner]);
  useEffect(() => {
    const l = controls?.lockdown;
    if (!owner || !l?.on) return;
    const now = Date.now();
    const next = [l.from, l.until].map((x) => (x ? Date.parse(x) - now : NaN)).filter((d) => d > 0 && d < 24 * 3600_000);
    if (next.length === 0) return;
    const id = setTimeout(() => void loadControls(), Math.min(...next) + 1000);
    return () => clearTimeout(id);
  }, [owner, controls]);
  return owner ? controls : null;
}

function LockdownBanner({ lockdown }: { lockdown: Controls['lockdown'] }) {
  return (
    <p class="banner lockdown" role="status">
      {lockdown.until ? t('app.lockdown_until', { time: fullTime(lockdown.until) }) : t('app.lockdown')}
      {lockdown.reason && <> {t('app.lockdown_reason', { reason: lockdown.reason })}</>}{' '}
      <Link href="/controls">{t('app.lockdown_manage')}</Link>
    </p>
  );
}

function isCurrent(navPath: string, path: string): boolean {
  return navPath === '/' ? path === '/' : path === navPath || path.startsWith(navPath + '/');
}

export function App() {
  const lang = useLang();
  const loc = useLocation();
  const offline = useOffline();
  const updateReady = useUpdateReady();
  const [info, setInfo] = useState<SiteInfo | null>(null);
  const [infoError, setInfoError] = useState<unknown>(null);
  const [shellError, setShellError] = useState<unknown>(null);
  const [unread, setUnread] = useState(0);
  const [menuOpen, setMenuOpen] = useState(false);

  const loadInfo = useCallback(async () => {
    setInfoError(null);
    try {
      setInfo(await call<SiteInfo>('site.info'));
    } catch (err) {
      setInfoError(err);
    }
  }, []);

  useEffect(() => {
    void loadInfo();
    // An expired session anywhere: back to login; the route to return to is
    // kept in ?next= and a compose draft stays in localStorage.
    onUnauthorized(() => setInfo((i) => (i ? { ...i, owner: false } : i)));
    return () => onUnauthorized(null);
  }, [loadInfo]);

  const owner = info?.owner === true;
  const controls = useControls(owner);
  const found = matchRoute(routes, loc.path);
  const route = found?.route ?? notFound;

  useEffect(() => {
    if (!info) return;
    if (!owner && !route.public) {
      navigate('/login?next=' + encodeURIComponent(currentAppPath()), { replace: true });
    } else if (owner && route.path === '/login') {
      navigate(safeNext(loc.query.get('next')), { replace: true });
    }
  }, [info, owner, route, loc]);

  useEffect(() => setMenuOpen(false), [loc.path]);

  // The page's description names the site once site.info has (index.html
  // carries a generic one for the first paint and for crawlers).
  useEffect(() => {
    if (!info) return;
    let meta = document.querySelector('meta[name="description"]');
    if (!meta) {
      meta = document.createElement('meta');
      meta.setAttribute('name', 'description');
      document.head.append(meta);
    }
    meta.setAttribute('content', t('app.description', { name: siteName(info) }));
  }, [info, lang]);

  const countUnread = useCallback(async () => {
    try {
      setUnread((await call<{ count: number }>('notifications.count_unread', {})).count);
    } catch {
      // The badge is a hint; the notifications screen shows errors.
    }
  }, []);
  usePoll(countUnread, UNREAD_POLL_MS, owner);

  const site: SiteState = useMemo(
    () => ({ info, reload: loadInfo, refreshUnread: () => void countUnread() }),
    [info, loadInfo, countUnread],
  );

  const logout = async () => {
    setShellError(null);
    try {
      await call('auth.logout', {});
      setInfo((i) => (i ? { ...i, owner: false } : i));
    } catch (err) {
      setShellError(err);
    }
  };

  let content;
  if (!info) content = infoError ? <ErrorBox error={infoError} onRetry={loadInfo} /> : <Loading />;
  else if (!owner && !route.public) content = <Loading />;
  else {
    const Screen = route.screen;
    content = <Screen key={loc.path} params={found?.params ?? {}} query={loc.query} />;
  }

  return (
    <SiteContext.Provider value={site}>
      <a class="skip" href="#main">
        {t('app.skip')}
      </a>
      <header class="top">
        <Link href="/" class="brand">
          {siteName(info)}
        </Link>
        <div class="top-actions">
          <select
            class="lang"
            aria-label={t('app.lang')}
            value={lang}
            onChange={(e) => setLang((e.currentTarget as HTMLSelectElement).value as Lang)}
          >
            {LANGS.map((l) => (
              <option key={l} value={l} lang={l}>
                {LANG_NAMES[l]}
              </option>
            ))}
          </select>
          {owner && (
            <button type="button" class="button plain" onClick={logout}>
              {t('app.logout')}
            </button>
          )}
          {owner && (
            <button
              type="button"
              class="button menu-button"
              aria-expanded={menuOpen ? 'true' : 'false'}
              aria-controls="nav"
              onClick={() => setMenuOpen((o) => !o)}
            >
              {t('app.menu')}
              {unread > 0 && <span class="badge" aria-hidden="true">{unread}</span>}
            </button>
          )}
        </div>
      </header>
      {owner && (
        <nav id="nav" class={menuOpen ? 'nav open' : 'nav'} aria-label={t('app.nav')}>
          <ul>
            {navRoutes.map((r) => (
              <li key={r.path}>
                <Link href={r.path} aria-current={isCurrent(r.path, loc.path) ? 'page' : undefined}>
                  {t(r.nav)}
                  {r.path === '/notifications' && unread > 0 && (
                    <>
                      <span class="badge" aria-hidden="true">
                        {unread > 99 ? '99+' : unread}
                      </span>
                      <span class="sr-only">{t('app.unread', { count: unread })}</span>
                    </>
                  )}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <div class="banners">
        {controls?.lockdown_active && <LockdownBanner lockdown={controls.lockdown} />}
        {offline && (
          <p class="banner offline" role="status">
            {t('app.offline')}
          </p>
        )}
        {updateReady && (
          <p class="banner update" role="status">
            {t('app.update')}{' '}
            <button type="button" class="button" onClick={() => window.location.reload()}>
              {t('app.reload')}
            </button>
          </p>
        )}
        {shellError !== null && <ErrorBox error={shellError} />}
      </div>
      <main id="main" tabIndex={-1}>
        {content}
      </main>
    </SiteContext.Provider>
  );
}
