// murlog's owner app service worker, hand-written (no workbox).
//
// - install: caches the app shell (/my/ and this build's assets) and takes over
//   at once (skipWaiting), so a new version needs no hard reload;
// - activate: claims the open pages and deletes older builds' caches;
// - /my/assets/*: cache-first (the names are content-hashed, so never stale);
// - navigations under /my/: network-first, the cached shell when offline (the
//   app then shows its offline banner);
// - /api/ and everything else: not handled, never cached. RPC responses are
//   the owner's data and must always come from the server.
//
// The next line is rewritten at build time by vite.config.ts with this build's
// asset list and id; a different build is therefore a different sw.js.
const BUILD = {"id":"dev","assets":[]};

const SCOPE = new URL('./', self.location.href).pathname; // "/my/"
const CACHE = 'murlog-shell-' + BUILD.id;
const SHELL = [SCOPE, SCOPE + 'manifest.webmanifest', SCOPE + 'icon.svg']
  .concat(BUILD.assets.map((a) => SCOPE + a));

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys
        .filter((k) => k.startsWith('murlog-shell-') && k !== CACHE)
        .map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/')) return;

  if (url.pathname.startsWith(SCOPE + 'assets/')) {
    event.respondWith(
      caches.match(req).then((hit) => hit || fetch(req).then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((cache) => cache.put(req, copy));
        }
        return res;
      })),
    );
    return;
  }

  // The theme preview (/my/preview/…) is a server page, not the app.
  if (req.mode === 'navigate' && url.pathname.startsWith(SCOPE)
      && !url.pathname.startsWith(SCOPE + 'preview/')) {
    event.respondWith(
      fetch(req).catch(() => caches.match(SCOPE).then((hit) => hit || Response.error())),
    );
  }
});
