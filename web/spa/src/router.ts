// A tiny history router for the app under /my/ (Vite's base). App paths are
// written without the base ("/compose/123"); URLs carry it ("/my/compose/123").
import { h, type ComponentChildren, type ComponentType, type JSX, type VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { createStore, useStore } from './store';

// The server serves the app at /my/ only (vite.config.ts: base "/my/"). A
// constant rather than import.meta.env.BASE_URL, which Vitest sets to "/".
export const BASE = '/my';

export interface Location {
  /** App path without the base and without the query: "/", "/compose/1". */
  path: string;
  query: URLSearchParams;
}

export interface ScreenProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

export function toURL(appPath: string): string {
  return BASE + (appPath.startsWith('/') ? appPath : '/' + appPath);
}

/** Reads an app location from a URL path + search; a path outside the base maps to "/". */
export function fromURL(pathname: string, search: string): Location {
  let path = pathname.startsWith(BASE + '/') || pathname === BASE ? pathname.slice(BASE.length) : '/';
  if (path === '') path = '/';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { path, query: new URLSearchParams(search) };
}

function readLocation(): Location {
  return fromURL(window.location.pathname, window.location.search);
}

const location = createStore<Location>(typeof window === 'undefined' ? { path: '/', query: new URLSearchParams() } : readLocation());

function publish(): void {
  location.set(readLocation());
}

if (typeof window !== 'undefined') window.addEventListener('popstate', publish);

// A hook run before each in-app navigation; returning true means it handled
// the navigation itself (the service worker update does a full page load).
let beforeNavigate: ((url: string) => boolean) | null = null;
export function setBeforeNavigate(fn: ((url: string) => boolean) | null): void {
  beforeNavigate = fn;
}

/** Goes to an app path ("/compose?x=1"). `replace` replaces the history entry. */
export function navigate(appPath: string, opts: { replace?: boolean } = {}): void {
  const url = toURL(appPath);
  if (beforeNavigate?.(url)) return;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  publish();
  window.scrollTo?.(0, 0);
}

export function currentLocation(): Location {
  return location.get();
}

/** The current path + query as an app path, e.g. for returning after login. */
export function currentAppPath(): string {
  const { path, query } = location.get();
  const q = query.toString();
  return path + (q ? '?' + q : '');
}

export function useLocation(): Location {
  return useStore(location);
}

/** Matches "/compose/:id" against "/compose/42" → {id: "42"}; null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const ps = pattern.split('/').filter(Boolean);
  const xs = path.split('/').filter(Boolean);
  if (ps.length !== xs.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    const x = xs[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(x);
      } catch {
        return null;
      }
    } else if (p !== x) return null;
  }
  return params;
}

/** The first route whose pattern matches, with its params. */
export function findRoute<R extends { path: string }>(routes: readonly R[], path: string): { route: R; params: Record<string, string> } | null {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}

export interface LinkProps extends Omit<JSX.AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** An app path: "/compose". */
  href: string;
  children?: ComponentChildren;
}

/**
 * An in-app link: a real <a href="/my/…"> (so it opens in a new tab, can be
 * copied, works without JS), whose plain left clicks navigate without a page
 * load. Modifier clicks (ctrl/cmd/shift/alt, middle button) are left to the browser.
 */
export function Link({ href, onClick, ...rest }: LinkProps) {
  const url = toURL(href);
  return h('a', {
    ...rest,
    href: url,
    onClick: (e: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
      if (onClick) (onClick as (e: JSX.TargetedMouseEvent<HTMLAnchorElement>) => void)(e);
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      if (rest.target && rest.target !== '_self') return;
      e.preventDefault();
      navigate(href);
    },
  });
}

type Loader<P> = () => Promise<{ default: ComponentType<P> }>;

type Rendered = VNode<any> | null;

export interface LazyComponent<P> {
  (props: P): Rendered;
  preload: () => Promise<ComponentType<P>>;
}

/**
 * A screen loaded on first use (its own chunk, so the entry stays small).
 * While loading it renders `fallback()`; if the chunk cannot be fetched
 * (offline, a deploy removed it) it renders `failed(retry)`.
 */
export function lazy<P extends object>(
  loader: Loader<P>,
  fallback: () => Rendered,
  failed: (retry: () => void) => Rendered,
): LazyComponent<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const preload = () => {
    pending ??= loader().then(
      (m) => (loaded = m.default),
      (err) => {
        pending = null;
        throw err;
      },
    );
    return pending;
  };
  const Lazy = (props: P): Rendered => {
    const [, setVersion] = useState(0);
    const [error, setError] = useState(false);
    useEffect(() => {
      if (loaded || error) return;
      let live = true;
      preload().then(
        () => live && setVersion((v) => v + 1),
        () => live && setError(true),
      );
      return () => {
        live = false;
      };
    }, [error]);
    if (loaded) return h(loaded as ComponentType<any>, props);
    if (error) return failed(() => setError(false));
    return fallback();
  };
  Lazy.preload = preload;
  return Lazy;
}
