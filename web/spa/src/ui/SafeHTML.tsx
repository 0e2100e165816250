// THE ONLY PLACE IN THE APP THAT SETS innerHTML.
//
// `html` must be HTML that the murlog server produced and sanitized: a post's
// or remote post's `content`, an actor's `summary`, posts.preview's `html`.
// Never pass a string built in the browser, text typed by the owner, or
// anything from another source: show those as text ({value} in JSX escapes).
// The page's CSP (script-src 'self', no inline) is a second line of defence.
import type { JSX } from 'preact';

export interface SafeHTMLProps {
  html: string;
  class?: string;
  lang?: string;
  id?: string;
}

export function SafeHTML({ html, class: cls, lang, id }: SafeHTMLProps): JSX.Element {
  return <div class={cls ? 'safe-html ' + cls : 'safe-html'} lang={lang || undefined} id={id} dangerouslySetInnerHTML={{ __html: html }} />;
}
