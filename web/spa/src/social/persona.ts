// The author of the owner's own posts. A local post carries only its
// persona_id, so the card asks personas.get once per persona and shares the
// answer with every card (a timeline of 200 of the owner's posts is one call).
import { useEffect, useState } from 'preact/hooks';
import { call } from '../rpc';
import type { Persona } from './types';

const cache = new Map<string, Promise<Persona>>();

function load(id: string): Promise<Persona> {
  let p = cache.get(id);
  if (!p) {
    p = call<Persona>('personas.get', { id });
    // A failure is not remembered: the next card asks again.
    p.catch(() => cache.delete(id));
    cache.set(id, p);
  }
  return p;
}

/** For tests: forget what was loaded. */
export function forgetPersonas(): void {
  cache.clear();
}

export function usePersona(id: string | null): Persona | null {
  const [persona, setPersona] = useState<Persona | null>(null);
  useEffect(() => {
    if (!id) return;
    let live = true;
    load(id).then(
      (p) => live && setPersona(p),
      () => undefined, // the card then shows "you" without a name
    );
    return () => {
      live = false;
    };
  }, [id]);
  return persona;
}

/** The persona's avatar as the public site serves it. */
export function personaAvatar(p: Persona | null): string | null {
  return p?.avatar_path ? '/media/' + p.avatar_path : null;
}
