// 日本語の文言。en.ts と同じキーを持つこと(テストで確認する)。
import type { Key } from './en';

export const ja: Record<Key, string> = {
  // --- shell (app.tsx) ---
  'app.name': 'murlog',
  'app.skip': '本文へ移動',
  'app.menu': 'メニュー',
  'app.nav': 'メイン',
  'app.logout': 'ログアウト',
  'app.lang': '言語',
  'app.offline': 'オフラインです。表示が古いかもしれません。接続が戻るまで保存できません。',
  'app.update': 'アプリの新しいバージョンがあります。',
  'app.reload': '再読み込み',
  'app.unread': '未読 {count} 件',
  'nav.home': 'ホーム',
  'nav.compose': '投稿する',
  'nav.posts': '投稿一覧',
  'nav.notifications': '通知',
  'nav.follows': 'フォロー',
  'nav.blocks': 'ブロック',
  'nav.profile': 'プロフィール',
  'nav.site': 'サイト',
  'nav.queue': 'キュー',
  'nav.security': 'セキュリティ',
  'nav.tokens': 'トークン',

  // --- shared ui (ui/) ---
  'ui.loading': '読み込み中…',
  'ui.retry': '再試行',
  'ui.busy': '処理中…',
  'ui.cancel': 'キャンセル',
  'ui.confirm': '実行する',
  'ui.close': '閉じる',
  'ui.copy': 'コピー',
  'ui.copied': 'コピーしました',
  'ui.copy_failed': 'コピーできませんでした。文字を選択して手動でコピーしてください。',
  'ui.more': 'さらに読み込む',
  'ui.newer': '新しいものを表示',
  'ui.end': 'これで全部です。',
  'ui.empty': 'まだ何もありません。',
  'ui.pull': '引っ張って更新',
  'ui.release': '離すと更新',
  'ui.refreshing': '更新中…',
  'ui.just_now': 'たった今',
  'ui.field_error': 'エラー: {message}',

  // --- errors (ui/errors.ts), by error.data.code ---
  'err.network': 'サーバーに接続できません。接続を確認してもう一度お試しください。',
  'err.timeout': 'サーバーの応答に時間がかかりすぎました。もう一度お試しください。',
  'err.aborted': 'リクエストは取り消されました。',
  'err.invalid': '入力内容に受け付けられないものがあります。',
  'err.unauthorized': 'ログインしていないか、セッションが終了しました。',
  'err.not_found': '存在しないか、削除されました。',
  'err.conflict': 'すでに実行済みか、既存のものと衝突しています。',
  'err.forbidden': 'その操作は許可されていません。',
  'err.rate_limited': '試行回数が多すぎます。{seconds} 秒後にもう一度お試しください。',
  'err.rate_limited_later': '試行回数が多すぎます。しばらくしてからお試しください。',
  'err.unavailable': 'サーバーが混み合っているか準備中です。少し待ってからお試しください。',
  'err.internal': 'サーバーで問題が起きました。もう一度お試しください。続く場合はサーバーのログを確認してください。',
  'err.bad_response': 'サーバーの応答をアプリが理解できませんでした。',
  'err.chunk': 'アプリのこの部分を読み込めませんでした。',
  'err.unknown': '問題が発生しました。',
  'err.detail': 'サーバーからのメッセージ: {message}',

  // --- not found (screens/NotFound.tsx) ---
  'notfound.title': 'ページが見つかりません',
  'notfound.body': 'このアドレスにはアプリのページがありません。',
  'notfound.home': 'ホームタイムラインへ',

  // --- Login (screens/Login.tsx) ---
  'login.title': 'ログイン',

  // --- Compose (screens/Compose.tsx) ---

  // --- Posts (screens/Posts.tsx) ---

  // --- Security (screens/Security.tsx) ---

  // --- Tokens (screens/Tokens.tsx) ---

  // --- Timeline (screens/Timeline.tsx) ---
  'timeline.refresh': '更新',
  'timeline.new_posts': '新しい投稿があります — 表示する',
  'timeline.label': 'ホームタイムライン',
  'timeline.empty': 'タイムラインにはまだ何もありません。',
  'timeline.empty_follow': '誰かをフォローする',
  'timeline.you': 'あなた',
  'timeline.open': '投稿を開く',
  'timeline.state_draft': '下書き',
  'timeline.read_original': '元のサイトで読む',
  'timeline.cw_show': '投稿を表示',
  'timeline.cw_hide': '投稿を隠す',
  'timeline.quote': '引用された投稿',
  'timeline.quote_open': '引用された投稿を開く',
  'timeline.boost': 'ブースト',
  'timeline.boosted': 'ブースト済み',
  'timeline.like': 'いいね',
  'timeline.liked': 'いいね済み',
  'timeline.boost_private': 'ブーストできるのは公開・未収載の投稿だけです。',
  'timeline.boosted_by_prefix': 'ブーストした人:',
  'timeline.reply': '返信',
  'timeline.reply_label': '返信',
  'timeline.reply_counter': '{count} / {limit}',
  'timeline.reply_visibility': '公開範囲',
  'timeline.reply_send': '返信を投稿',
  'timeline.reply_sent': '返信を投稿しました。',
  'timeline.vis_public': '公開',
  'timeline.vis_unlisted': '未収載',
  'timeline.vis_followers': 'フォロワーのみ',
  'timeline.vis_direct': 'メンションした相手のみ',
  'timeline.media_video': '動画',
  'timeline.media_audio': '音声',
  'timeline.media_file': '添付ファイル',
  'timeline.sensitive_show': '閲覧注意のメディア({count} 件)— 表示する',
  'timeline.sensitive_hide': 'メディアを隠す',

  // --- PostDetail (screens/PostDetail.tsx) ---
  'postdetail.title': '投稿',
  'postdetail.no_post': 'このアドレスは投稿を指していません。',
  'postdetail.thread': 'スレッド',
  'postdetail.replies': '返信({count} 件)',
  'postdetail.replies_label': '返信',
  'postdetail.no_replies': 'このサイトが知っている返信はありません。',
  'postdetail.deliveries': '配送状況',
  'postdetail.deliveries_hint': 'この投稿の送り先です。このページを開いている間、数秒ごとに更新します。',
  'postdetail.counts': '状態ごとの配送数',
  'postdetail.state_failed': '失敗',
  'postdetail.state_pending': '待機中',
  'postdetail.state_delivered': '配送済み',
  'postdetail.state_skipped': 'スキップ',
  'postdetail.no_deliveries': 'どこにも送られていません。フォロワーのサーバーもメンションもないか、まだ公開されていません。',
  'postdetail.attempts': '試行 {count} 回',
  'postdetail.retrying': '再試行します。直近のエラー: {error}',
  'postdetail.reason': '理由: {error}',

  // --- Notifications (screens/Notifications.tsx) ---
  'notifications.kind_follow': 'あなたをフォローしました',
  'notifications.kind_follow_request': 'フォローをリクエストしました',
  'notifications.kind_mention': 'あなたにメンションしました',
  'notifications.kind_reply': 'あなたの投稿に返信しました',
  'notifications.kind_favourite': 'あなたの投稿にいいねしました',
  'notifications.kind_reblog': 'あなたの投稿をブーストしました',
  'notifications.kind_move': '別のアカウントに引っ越しました',
  'notifications.kind_quote': 'あなたの投稿を引用しました',
  'notifications.unread': '未読',
  'notifications.mark_read': '既読にする',
  'notifications.delete': '削除',
  'notifications.deleted': '通知を削除しました。',
  'notifications.post_gone': '投稿はもうありません。',
  'notifications.read_all': 'すべて既読にする',
  'notifications.refresh': '更新',
  'notifications.filter': '表示',
  'notifications.filter_all': 'すべて',
  'notifications.filter_mentions': 'メンション・返信・引用',
  'notifications.filter_follows': 'フォローとリクエスト',
  'notifications.filter_favourites': 'いいね',
  'notifications.filter_reblogs': 'ブースト',
  'notifications.filter_moves': '引っ越し',
  'notifications.unread_only': '未読のみ',
  'notifications.label': '通知',
  'notifications.empty': '通知はまだありません。',
  'notifications.empty_unread': '未読の通知はありません。',

  // --- Follows (screens/Follows.tsx) ---

  // --- RemoteProfile (screens/RemoteProfile.tsx) ---
  'remoteprofile.title': 'アカウント',

  // --- Blocks (screens/Blocks.tsx) ---

  // --- Profile (screens/Profile.tsx) ---

  // --- Site (screens/Site.tsx) ---

  // --- Queue (screens/Queue.tsx) ---
};
