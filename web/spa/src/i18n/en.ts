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
  'timeline.refresh': 'Refresh',
  'timeline.new_posts': 'New posts — show them',
  'timeline.label': 'Home timeline',
  'timeline.empty': 'Nothing in your timeline yet.',
  'timeline.empty_follow': 'Follow someone',
  'timeline.you': 'You',
  'timeline.open': 'Open the post',
  'timeline.state_draft': 'Draft',
  'timeline.read_original': 'Read it on the original site',
  'timeline.cw_show': 'Show the post',
  'timeline.cw_hide': 'Hide the post',
  'timeline.quote': 'Quoted post',
  'timeline.quote_open': 'Open the quoted post',
  'timeline.boost': 'Boost',
  'timeline.boosted': 'Boosted',
  'timeline.like': 'Like',
  'timeline.liked': 'Liked',
  'timeline.boost_private': 'Only public and unlisted posts can be boosted.',
  'timeline.boosted_by_prefix': 'Boosted by',
  'timeline.reply': 'Reply',
  'timeline.reply_label': 'Your reply',
  'timeline.reply_counter': '{count} / {limit}',
  'timeline.reply_visibility': 'Who can see it',
  'timeline.reply_send': 'Post the reply',
  'timeline.reply_sent': 'Reply posted.',
  'timeline.vis_public': 'Public',
  'timeline.vis_unlisted': 'Unlisted',
  'timeline.vis_followers': 'Followers only',
  'timeline.vis_direct': 'Mentioned people only',
  'timeline.media_video': 'Video',
  'timeline.media_audio': 'Audio',
  'timeline.media_file': 'Attached file',
  'timeline.sensitive_show': 'Sensitive media ({count}) — show',
  'timeline.sensitive_hide': 'Hide the media',

  // --- PostDetail (screens/PostDetail.tsx) ---
  'postdetail.title': 'Post',
  'postdetail.no_post': 'This address names no post.',
  'postdetail.thread': 'Thread',
  'postdetail.replies': 'Replies ({count})',
  'postdetail.replies_label': 'Replies',
  'postdetail.no_replies': 'No replies that this site knows of.',
  'postdetail.deliveries': 'Deliveries',
  'postdetail.deliveries_hint': 'Where this post was sent. Updated every few seconds while this page is open.',
  'postdetail.counts': 'Deliveries by state',
  'postdetail.state_failed': 'Failed',
  'postdetail.state_pending': 'Pending',
  'postdetail.state_delivered': 'Delivered',
  'postdetail.state_skipped': 'Skipped',
  'postdetail.no_deliveries': 'Not sent anywhere: no follower\'s server and nobody mentioned, or it is not published yet.',
  'postdetail.attempts': '{count} attempts',
  'postdetail.retrying': 'Will be retried. Last error: {error}',
  'postdetail.reason': 'Reason: {error}',

  // --- Notifications (screens/Notifications.tsx) ---
  'notifications.kind_follow': 'followed you',
  'notifications.kind_follow_request': 'asked to follow you',
  'notifications.kind_mention': 'mentioned you',
  'notifications.kind_reply': 'replied to your post',
  'notifications.kind_favourite': 'liked your post',
  'notifications.kind_reblog': 'boosted your post',
  'notifications.kind_move': 'moved to another account',
  'notifications.kind_quote': 'quoted your post',
  'notifications.unread': 'unread',
  'notifications.mark_read': 'Mark read',
  'notifications.delete': 'Delete',
  'notifications.deleted': 'Notification deleted.',
  'notifications.post_gone': 'The post is no longer here.',
  'notifications.read_all': 'Mark all read',
  'notifications.refresh': 'Refresh',
  'notifications.filter': 'Show',
  'notifications.filter_all': 'All',
  'notifications.filter_mentions': 'Mentions, replies and quotes',
  'notifications.filter_follows': 'Follows and requests',
  'notifications.filter_favourites': 'Likes',
  'notifications.filter_reblogs': 'Boosts',
  'notifications.filter_moves': 'Moves',
  'notifications.unread_only': 'Unread only',
  'notifications.label': 'Notifications',
  'notifications.empty': 'No notifications yet.',
  'notifications.empty_unread': 'Nothing unread.',

  // --- Follows (screens/Follows.tsx) ---
  'follows.follow_label': 'Follow an account',
  'follows.follow': 'Follow',
  'follows.handle_hint': 'Its address, like @user@example.social.',
  'follows.handle_empty': 'Type the account\'s address, like @user@example.social.',
  'follows.handle_invalid': 'That is not an account address. Write it as @user@host, for example @user@example.social.',
  'follows.unreachable': 'The server {host} could not be reached, or it did not answer as a fediverse server.',
  'follows.no_account': 'There is no such account on {host}.',
  'follows.already': 'You already follow {who}, or asked to.',
  'follows.forbidden': 'You cannot follow {who}: one of you blocks the other, or their server is blocked.',
  'follows.requested': 'Follow request sent to {who}. It waits for their approval.',
  'follows.now_following': 'You now follow {who}.',
  'follows.see_profile': 'See the profile',
  'follows.tabs': 'Lists',
  'follows.tab_following': 'Following',
  'follows.tab_followers': 'Followers',
  'follows.tab_requests': 'Requests',
  'follows.empty_following': 'You follow nobody yet.',
  'follows.empty_followers': 'Nobody follows you yet.',
  'follows.empty_requests': 'No follow requests waiting.',
  'follows.pending': 'Awaiting approval',
  'follows.mutual': 'You follow them',
  'follows.follows_you': 'Follows you',
  'follows.unfollow': 'Unfollow',
  'follows.cancel_request': 'Cancel the request',
  'follows.remove': 'Remove',
  'follows.approve': 'Approve',
  'follows.reject': 'Reject',
  'follows.confirm_unfollow': 'Stop following {name}?',
  'follows.confirm_remove': 'Remove {name} from your followers? Your posts stop going to them.',
  'follows.confirm_reject': 'Reject the follow request of {name}?',
  'follows.done_unfollowed': 'Unfollowed.',
  'follows.done_removed': 'Removed.',
  'follows.done_approved': 'Approved: now a follower.',
  'follows.done_rejected': 'Rejected.',

  // --- RemoteProfile (screens/RemoteProfile.tsx) ---
  'remoteprofile.title': 'Account',

  // --- Blocks (screens/Blocks.tsx) ---

  // --- Profile (screens/Profile.tsx) ---

  // --- Site (screens/Site.tsx) ---

  // --- Queue (screens/Queue.tsx) ---
};

export type Key = keyof typeof en;
