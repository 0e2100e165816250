// The app's screens: each path (with :params) maps to a screen module loaded
// on first use, so the entry chunk holds only the shell. The nav shows the
// routes that have a `nav` label, in this order.
import { h, type ComponentType } from 'preact';
import type { Key } from './i18n';
import { lazy, type LazyComponent, type ScreenProps } from './router';
import { ErrorBox, Loading } from './ui/basic';
import { RPCError } from './rpc';

export interface Route {
  path: string;
  screen: LazyComponent<ScreenProps>;
  /** The nav label; routes without one are reached by links. */
  nav?: Key;
  /** Shown without login (the login screen itself). */
  public?: boolean;
}

const chunkError = new RPCError(0, 'chunk', 'chunk');
const screen = (loader: () => Promise<{ default: ComponentType<ScreenProps> }>) =>
  lazy<ScreenProps>(loader, () => h(Loading, null), (retry) => h(ErrorBox, { error: chunkError, onRetry: retry }));

const Timeline = screen(() => import('./screens/Timeline'));
const Compose = screen(() => import('./screens/Compose'));
const PostDetail = screen(() => import('./screens/PostDetail'));
const Follows = screen(() => import('./screens/Follows'));
const RemoteProfile = screen(() => import('./screens/RemoteProfile'));

export const routes: Route[] = [
  { path: '/', screen: Timeline, nav: 'nav.home' },
  { path: '/compose', screen: Compose, nav: 'nav.compose' },
  { path: '/compose/:id', screen: Compose },
  { path: '/posts', screen: screen(() => import('./screens/Posts')), nav: 'nav.posts' },
  // A local post by id, or a remote one by ?uri=…
  { path: '/post/:id', screen: PostDetail },
  { path: '/post', screen: PostDetail },
  { path: '/notifications', screen: screen(() => import('./screens/Notifications')), nav: 'nav.notifications' },
  { path: '/follows', screen: Follows, nav: 'nav.follows' },
  { path: '/follows/:tab', screen: Follows },
  // A remote account by its local id, or looked up by ?q=@user@host (a path's
  // last segment may not contain a dot: the server would not serve the app).
  { path: '/actor/:id', screen: RemoteProfile },
  { path: '/actor', screen: RemoteProfile },
  { path: '/blocks', screen: screen(() => import('./screens/Blocks')), nav: 'nav.blocks' },
  { path: '/profile', screen: screen(() => import('./screens/Profile')), nav: 'nav.profile' },
  { path: '/site', screen: screen(() => import('./screens/Site')), nav: 'nav.site' },
  { path: '/controls', screen: screen(() => import('./screens/Controls')), nav: 'nav.controls' },
  { path: '/queue', screen: screen(() => import('./screens/Queue')), nav: 'nav.queue' },
  { path: '/security', screen: screen(() => import('./screens/Security')), nav: 'nav.security' },
  { path: '/tokens', screen: screen(() => import('./screens/Tokens')), nav: 'nav.tokens' },
  { path: '/login', screen: screen(() => import('./screens/Login')), public: true },
];

export const notFound: Route = { path: '*', screen: screen(() => import('./screens/NotFound')), public: true };

export const navRoutes = routes.filter((r): r is Route & { nav: Key } => r.nav !== undefined);
