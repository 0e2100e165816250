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

  // --- PostDetail (screens/PostDetail.tsx) ---
  'postdetail.title': '投稿',

  // --- Notifications (screens/Notifications.tsx) ---

  // --- Follows (screens/Follows.tsx) ---

  // --- RemoteProfile (screens/RemoteProfile.tsx) ---
  'remoteprofile.title': 'アカウント',

  // --- Blocks (screens/Blocks.tsx) ---

  // --- Profile (screens/Profile.tsx) ---

  // --- Site (screens/Site.tsx) ---

  // --- Queue (screens/Queue.tsx) ---
};
