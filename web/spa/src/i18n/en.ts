// English texts. ja.ts must have exactly the same keys (a test checks).
// Each screen keeps its keys in its own section, prefixed with the screen's
// name, so that screens written in parallel touch different lines.
export const en = {
  // --- shell (app.tsx) ---
  'app.name': 'murlog',
  'app.skip': 'Skip to content',
  'app.menu': 'Menu',
  'app.nav': 'Main',
  'app.logout': 'Log out',
  'app.lang': 'Language',
  'app.offline': 'You are offline. What you see may be out of date, and nothing can be saved until the connection is back.',
  'app.update': 'A new version of the app is ready.',
  'app.reload': 'Reload',
  'app.unread': '{count} unread',
  'nav.home': 'Home',
  'nav.compose': 'Compose',
  'nav.posts': 'Posts',
  'nav.notifications': 'Notifications',
  'nav.follows': 'Follows',
  'nav.blocks': 'Blocks',
  'nav.profile': 'Profile',
  'nav.site': 'Site',
  'nav.queue': 'Queue',
  'nav.security': 'Security',
  'nav.tokens': 'Tokens',

  // --- shared ui (ui/) ---
  'ui.loading': 'Loading…',
  'ui.retry': 'Retry',
  'ui.busy': 'Working…',
  'ui.cancel': 'Cancel',
  'ui.confirm': 'Confirm',
  'ui.close': 'Close',
  'ui.copy': 'Copy',
  'ui.copied': 'Copied',
  'ui.copy_failed': 'Could not copy: select the text and copy it by hand.',
  'ui.more': 'Load more',
  'ui.newer': 'Show newer',
  'ui.end': 'That is all.',
  'ui.empty': 'Nothing here yet.',
  'ui.pull': 'Pull to refresh',
  'ui.release': 'Release to refresh',
  'ui.refreshing': 'Refreshing…',
  'ui.just_now': 'just now',
  'ui.field_error': 'Error: {message}',

  // --- errors (ui/errors.ts), by error.data.code ---
  'err.network': 'The server could not be reached. Check the connection and try again.',
  'err.timeout': 'The server took too long to answer. Try again.',
  'err.aborted': 'The request was cancelled.',
  'err.invalid': 'Something in the form is not accepted.',
  'err.unauthorized': 'You are not logged in, or your session has ended.',
  'err.not_found': 'It does not exist, or it was deleted.',
  'err.conflict': 'That was already done, or it conflicts with something that exists.',
  'err.forbidden': 'That is not allowed.',
  'err.rate_limited': 'Too many attempts. Try again in {seconds} seconds.',
  'err.rate_limited_later': 'Too many attempts. Try again later.',
  'err.unavailable': 'The server is busy or not ready. Try again in a moment.',
  'err.internal': 'The server had a problem. Try again; if it keeps happening, look at the server log.',
  'err.bad_response': 'The server sent an answer the app does not understand.',
  'err.chunk': 'This part of the app could not be loaded.',
  'err.unknown': 'Something went wrong.',
  'err.detail': 'Server says: {message}',

  // --- not found (screens/NotFound.tsx) ---
  'notfound.title': 'Page not found',
  'notfound.body': 'There is no page at this address in the app.',
  'notfound.home': 'Go to the home timeline',

  // --- Login (screens/Login.tsx) ---
  'login.title': 'Log in',

  // --- Compose (screens/Compose.tsx) ---

  // --- Posts (screens/Posts.tsx) ---

  // --- Security (screens/Security.tsx) ---

  // --- Tokens (screens/Tokens.tsx) ---

  // --- Timeline (screens/Timeline.tsx) ---

  // --- PostDetail (screens/PostDetail.tsx) ---
  'postdetail.title': 'Post',

  // --- Notifications (screens/Notifications.tsx) ---

  // --- Follows (screens/Follows.tsx) ---

  // --- RemoteProfile (screens/RemoteProfile.tsx) ---
  'remoteprofile.title': 'Account',

  // --- Blocks (screens/Blocks.tsx) ---

  // --- Profile (screens/Profile.tsx) ---

  // --- Site (screens/Site.tsx) ---

  // --- Queue (screens/Queue.tsx) ---
};

export type Key = keyof typeof en;
