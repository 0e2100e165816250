// A remote account in a list or a post's header: avatar, display name and
// @user@host, linking to its profile in the app. The display name and the
// handle are remote strings and are shown as TEXT (JSX escapes them); <bdi>
// keeps a right-to-left name from reordering what follows it.
import type { ComponentChildren } from 'preact';
import { Link } from '../router';
import { Avatar } from '../ui/basic';
import { atAcct, webURL } from './handle';
import type { Actor } from './types';
import './social.css';

export function actorName(a: Pick<Actor, 'display_name' | 'username' | 'acct'>): string {
  const n = a.display_name.trim();
  return n || a.username || a.acct;
}

/** The app's page of a remote account: by local id, else looked up by its URI. */
export function actorHref(a: Pick<Actor, 'id' | 'uri' | 'acct'>): string {
  if (a.id) return '/actor/' + encodeURIComponent(a.id);
  return '/actor?q=' + encodeURIComponent(a.acct ? atAcct(a.acct) : a.uri);
}

export function ActorLine({ actor, size = 48, children }: { actor: Actor; size?: 32 | 48; children?: ComponentChildren }) {
  const name = actorName(actor);
  return (
    <div class="actor-line">
      <Avatar src={webURL(actor.avatar_url)} name={name} size={size} />
      <div class="actor-text">
        <Link href={actorHref(actor)} class="actor-name">
          <bdi>{name}</bdi>
        </Link>
        <span class="acct">
          <bdi>{atAcct(actor.acct)}</bdi>
        </span>
        {children}
      </div>
    </div>
  );
}
