// Service worker registration and "a new version is ready".
//
// public/sw.js skips waiting and claims open pages, so a new build takes over
// by itself; the page then still runs the old code. When that happens
// (controllerchange while a worker already controlled the page) the next
// in-app navigation is a full page load, and the shell offers a reload button.
import { BASE, setBeforeNavigate } from './router';
import { createStore, useStore } from './store';

const updateReady = createStore(false);

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const sw = navigator.serviceWorker;
  // The first install also fires controllerchange (clients.claim); that is not an update.
  let controlled = sw.controller !== null;
  sw.addEventListener('controllerchange', () => {
    if (controlled) updateReady.set(true);
    controlled = true;
  });
  setBeforeNavigate((url) => {
    if (!updateReady.get()) return false;
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
  return useStore(updateReady);
}
