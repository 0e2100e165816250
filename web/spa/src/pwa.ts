// Service worker registration and "a new version is ready".
//
// public/sw.js skips waiting and claims open pages, so a new build takes over
// by itself; the page then still runs the old code. When that happens
// (controllerchange while a worker already controlled the page) the next
// in-app navigation is a full page load, and the shell offers a reload button.
import { useEffect, useState } from 'preact/hooks';
import { BASE, setBeforeNavigate } from './router';

let updateReady = false;
const listeners = new Set<(v: boolean) => void>();

function markUpdateReady(): void {
  updateReady = true;
  for (const fn of listeners) fn(true);
}

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const sw = navigator.serviceWorker;
  // The first install also fires controllerchange (clients.claim); that is not an update.
  let controlled = sw.controller !== null;
  sw.addEventListener('controllerchange', () => {
    if (controlled) markUpdateReady();
    controlled = true;
  });
  setBeforeNavigate((url) => {
    if (!updateReady) return false;
    window.location.assign(url);
    return true;
  });
  sw.register(BASE + '/sw.js', { scope: BASE + '/' }).then(
    (reg) => {
      // An app that never reloads would never look for a new sw.js: look when it comes back to view.
      document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'visible') reg.update().catch(() => undefined);
      });
    },
    () => undefined, // no service worker (http on a LAN address, private mode): the app still works online
  );
}

export function useUpdateReady(): boolean {
  const [ready, set] = useState(updateReady);
  useEffect(() => {
    listeners.add(set);
    return () => {
      listeners.delete(set);
    };
  }, []);
  return ready;
}
