// The social API's shapes (docs/api.md "social"), as the screens read them.
// Which strings are HTML matters: only the fields marked "sanitized HTML"
// may go to <SafeHTML>; every other string is shown as text.

export type FollowState = 'none' | 'pending' | 'accepted';

export interface Relationship {
  following: FollowState;
  followed_by: FollowState;
  blocking: boolean;
  blocked_by: boolean;
  domain_blocking: boolean;
}

export interface Field {
  /** Text. */
  name: string;
  /** Remote actors: sanitized HTML. */
  value: string;
}

export interface Actor {
  id: string;
  uri: string;
  acct: string;
  username: string;
  domain: string;
  /** Text, never HTML. */
  display_name: string;
  /** Sanitized HTML. */
  summary: string;
  url: string;
  avatar_url: string;
  header_url: string;
  type: string;
  locked: boolean;
  fields: Field[];
  moved_to: string;
  fetched_at: string;
  relationship?: Relationship;
}

export interface Attachment {
  type: string;
  media_type?: string;
  url: string;
  /** Alt text. */
  name?: string;
  blurhash?: string;
}

/** A post of the owner's (posts.get as the owner sees it). */
export interface LocalPost {
  id: string;
  persona_id: string;
  kind: 'note' | 'article';
  title?: string;
  /** Sanitized HTML (the server's renderer). */
  content: string;
  /** Articles: the text without markup, cut at 200 characters (text, not HTML). */
  excerpt?: string;
  /** The owner's own plain text. */
  summary: string;
  sensitive: boolean;
  visibility: string;
  language: string;
  tags: string[];
  in_reply_to: string;
  published_at: string | null;
  state?: 'draft' | 'scheduled' | 'published';
  /** The public page, which is also the post's ActivityPub id. */
  url: string;
  created_at: string;
  updated_at: string;
}

export interface RemotePost {
  /** The local id; "" when shown without being cached. */
  id: string;
  uri: string;
  url: string;
  type: string;
  actor: Actor;
  /** Text (an Article's title). */
  name: string;
  /** Sanitized HTML. */
  content: string;
  external: boolean;
  /** Content warning, sanitized HTML. */
  summary: string;
  sensitive: boolean;
  visibility: string;
  in_reply_to: string;
  quote: AnyPost | null;
  language: string;
  attachments: Attachment[];
  tags: string[];
  published_at: string;
  updated_at: string | null;
  favourited: boolean;
  reblogged: boolean;
}

export type AnyPost = LocalPost | RemotePost;

export function isRemote(p: AnyPost): p is RemotePost {
  return 'actor' in p && typeof (p as RemotePost).actor === 'object' && p.actor !== null;
}

export interface TimelineItem {
  id: string;
  kind: 'local' | 'remote';
  post: AnyPost;
  boosted_by: Actor | null;
  at: string;
}

export type NotificationKind = 'follow' | 'follow_request' | 'mention' | 'reply' | 'favourite' | 'reblog' | 'move' | 'quote';

export interface Notification {
  id: string;
  kind: NotificationKind;
  actor: Actor;
  post: LocalPost | null;
  remote_post: RemotePost | null;
  read: boolean;
  created_at: string;
}

export interface Follow {
  id: string;
  actor: Actor;
  state: 'pending' | 'accepted';
  created_at: string;
  accepted_at?: string | null;
}

export interface Thread {
  ancestors: AnyPost[];
  post: AnyPost;
  descendants: AnyPost[];
}

export type DeliveryState = 'delivered' | 'pending' | 'failed' | 'skipped';

export interface Delivery {
  inbox: string;
  state: DeliveryState;
  attempts: number;
  last_error: string;
  updated_at: string;
}

export interface Deliveries {
  delivered: number;
  pending: number;
  failed: number;
  skipped: number;
  inboxes: Delivery[];
  next_cursor: string | null;
}

export interface DomainBlock {
  domain: string;
  reason: string;
  created_at: string;
}

/** A persona (personas.get): the author of the owner's own posts. */
export interface Persona {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  avatar_path: string;
  url: string;
}
