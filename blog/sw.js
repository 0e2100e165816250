/* murlog's reader worker (issue 16, layer 1: the reader's device).
   Served at /sw.js after a first line that sets MURLOG_SW = {version,
   precache: [{url, integrity}]} (blog/sw.go): the stylesheets and scripts
   of every theme, under their content-hashed names. Four caches (the
   owner's app at /my/ has its own worker and murlog-shell-* caches, which
   this one never touches):
   - murlog-blog-pages: HTML pages read, network first (a short timeout, then
     the copy kept), so a post once read opens offline; the newest 50.
   - murlog-blog-assets: hashed theme assets, cache first (their bytes never
     change under a name).
   - murlog-blog-data: the public read API's pointers (/api/pub/), network
     first; a kept copy answers offline only within 60 s of being fetched.
   - murlog-blog-precache-<version>: the themes' assets of this version,
     fetched at install with their integrity; older versions go at
     activation.
   Never cached: other origins, anything but GET, the owner's app (/my/),
   the RPC API (/api/mur/), setup (/admin), responses that are not 200, are
   redirects, or say no-store or private. The kill switch: the runtime
   pointer's service_worker false (checked at activation and every few
   minutes on navigation) deletes these caches and unregisters the
   worker. */
(function () {
  'use strict';

  var CFG = self.MURLOG_SW || { version: 'none', precache: [] };
  var PREFIX = 'murlog-blog-'; // the owner's app keeps murlog-shell-*
  var PRECACHE = PREFIX + 'precache-' + CFG.version;
  var PAGES = PREFIX + 'pages';
  var ASSETS = PREFIX + 'assets';
  var DATA = PREFIX + 'data';
  var KEEP = [PRECACHE, PAGES, ASSETS, DATA];
  var MAX = {};
  MAX[PAGES] = 50;
  MAX[ASSETS] = 100;
  MAX[DATA] = 50;
  var PAGE_TIMEOUT = 3000; // ms before a kept page answers instead
  var DATA_FRESH = 60000; // ms a kept pointer may answer offline
  var CHECK_EVERY = 300000; // ms between runtime checks on navigation
  var RUNTIME = '/api/pub/runtime';
  var STORED = 'x-murlog-stored'; // when a kept pointer was fetched (ms)
  var ASSET = /^\/themes\/[A-Za-z0-9_-]{1,50}\/[^/]+\.[0-9a-f]{10}\.[A-Za-z0-9]+$/;
  var SKIP = /^\/(my|admin|api\/mur|metrics|healthz|sw\.js)(\/|$)/;

  var lastCheck = 0;
  var dead = false; // switched off: nothing more is kept

  function noop() {}

  function ownCaches() {
    return caches.keys().then(function (keys) {
      return keys.filter(function (k) { return k.indexOf(PREFIX) === 0; });
    });
  }

  // off is the kill switch: every murlog cache deleted, the worker
  // unregistered (the pages it controls now keep it until they close).
  function off() {
    dead = true;
    return ownCaches().then(function (keys) {
      return Promise.all(keys.map(function (k) { return caches.delete(k); }));
    }).then(function () { return self.registration.unregister(); });
  }

  // check reads the runtime pointer past every cache; only an explicit
  // service_worker false turns the worker off (a failed read keeps it).
  function check() {
    lastCheck = Date.now();
    return fetch(RUNTIME, { cache: 'no-store', credentials: 'omit', headers: { Accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (rt) { if (rt && rt.service_worker === false) return off(); })
      .catch(noop);
  }

  self.addEventListener('install', function (event) {
    event.waitUntil(caches.open(PRECACHE).then(function (c) {
      // Each with its integrity: a damaged copy is refused, not kept. One
      // that fails is fetched again when a page asks for it.
      return Promise.all(CFG.precache.map(function (a) {
        return c.add(new Request(a.url, { integrity: a.integrity || '', credentials: 'omit' })).catch(noop);
      }));
    }).then(function () { return self.skipWaiting(); }));
  });

  self.addEventListener('activate', function (event) {
    event.waitUntil(ownCaches().then(function (keys) {
      return Promise.all(keys.filter(function (k) { return KEEP.indexOf(k) < 0; })
        .map(function (k) { return caches.delete(k); }));
    }).then(function () { return self.clients.claim(); }).then(check));
  });

  // storable: a whole same-origin 200 of the type, that may be kept.
  function storable(res, type) {
    if (!res || res.status !== 200 || res.type !== 'basic' || res.redirected) return false;
    var cc = (res.headers.get('Cache-Control') || '').toLowerCase();
    if (cc.indexOf('no-store') >= 0 || cc.indexOf('private') >= 0) return false;
    return (res.headers.get('Content-Type') || '').indexOf(type) === 0;
  }

  // put keeps res under req as the newest entry of the cache, dropping the
  // oldest past its bound (keys are in insertion order).
  function put(name, req, res) {
    if (dead) return Promise.resolve();
    return caches.open(name).then(function (c) {
      return c.delete(req).then(function () { return c.put(req, res); })
        .then(function () { return c.keys(); })
        .then(function (keys) {
          var n = keys.length - MAX[name];
          return Promise.all(keys.slice(0, n > 0 ? n : 0).map(function (k) { return c.delete(k); }));
        });
    }).then(function () {
      if (dead) return caches.delete(name); // switched off while it was written
    }).catch(noop);
  }

  function kept(name, req) {
    return caches.open(name).then(function (c) { return c.match(req, { ignoreVary: true }); });
  }

  function page(event) {
    var req = event.request;
    var net = fetch(req).then(function (res) {
      if (storable(res, 'text/html')) event.waitUntil(put(PAGES, req, res.clone()));
      return res;
    });
    event.waitUntil(net.catch(noop));
    var timer;
    var late = new Promise(function (_, reject) { timer = setTimeout(reject, PAGE_TIMEOUT); });
    return Promise.race([net, late]).then(function (res) {
      clearTimeout(timer);
      return res;
    }, function () {
      clearTimeout(timer);
      return kept(PAGES, req).then(function (hit) { return hit || net; });
    });
  }

  function asset(event) {
    var req = event.request;
    return caches.match(req, { ignoreVary: true }).then(function (hit) {
      if (hit) return hit;
      return fetch(req).then(function (res) {
        if (storable(res, '')) event.waitUntil(put(ASSETS, req, res.clone()));
        return res;
      });
    });
  }

  // stamped is a copy of res that says when it was fetched.
  function stamped(res) {
    return res.blob().then(function (body) {
      var h = new Headers(res.headers);
      h.set(STORED, String(Date.now()));
      return new Response(body, { status: res.status, statusText: res.statusText, headers: h });
    });
  }

  // obey turns the worker off when the runtime pointer a page read through
  // it says so (the page removes it too; this keeps the worker from
  // writing its caches again meanwhile).
  function obey(res) {
    return res.json().then(function (rt) {
      if (rt && rt.service_worker === false) return off();
    }).catch(noop);
  }

  function data(event) {
    var req = event.request;
    var runtime = new URL(req.url).pathname === RUNTIME;
    return fetch(req).then(function (res) {
      if (runtime && res.ok) event.waitUntil(obey(res.clone()));
      if (storable(res, 'application/json')) {
        event.waitUntil(stamped(res.clone()).then(function (s) { return put(DATA, req, s); }).catch(noop));
      }
      return res;
    }, function (err) {
      return kept(DATA, req).then(function (hit) {
        var at = hit ? Number(hit.headers.get(STORED)) : 0;
        if (hit && Date.now() - at <= DATA_FRESH) return hit;
        throw err;
      });
    });
  }

  self.addEventListener('fetch', function (event) {
    var req = event.request;
    if (req.method !== 'GET') return;
    var url = new URL(req.url);
    if (url.origin !== self.location.origin || SKIP.test(url.pathname)) return;
    if (ASSET.test(url.pathname)) {
      event.respondWith(asset(event));
    } else if (url.pathname.indexOf('/api/pub/') === 0) {
      event.respondWith(data(event));
    } else if (req.mode === 'navigate') {
      if (Date.now() - lastCheck > CHECK_EVERY) event.waitUntil(check());
      event.respondWith(page(event));
    }
  });
})();
