/* murlog hydration: refreshes the server-rendered sidebar lists from the
   public read API with the same precompiled partials (templates.js), then
   loads the share widgets' scripts, each once and only when enabled; and
   registers the reader's offline worker (/sw.js) when the runtime pointer
   says it is on, or removes it and its caches when it says it is off.
   Plain ES2019, no eval, nothing inline (the page's CSP forbids both).
   Every failure is caught: the server-rendered page is already complete. */
(function () {
  'use strict';

  var Handlebars = window.Handlebars;

  var WIDGETS = {
    x: [{ src: 'https://platform.twitter.com/widgets.js', needs: '.twitter-share-button' }],
    hatena: [
      { src: 'https://b.st-hatena.com/js/bookmark_button.js', needs: '.hatena-bookmark-button' },
      { src: 'https://s.hatena.ne.jp/js/HatenaStar.js', needs: '.hatena-star', then: startHatenaStar }
    ]
  };

  var loaded = {};

  function readData() {
    var el = document.getElementById('murlog-data');
    if (!el) return null;
    try {
      return JSON.parse(el.textContent);
    } catch (e) {
      return null;
    }
  }

  function registerHelpers() {
    if (!Handlebars || Handlebars.helpers.eq) return;
    Handlebars.registerHelper('eq', function (a, b) {
      return a === b;
    });
  }

  // sameHTML compares through the parser, so that entity spellings and
  // attribute quoting (the Go and the JS engine escape differently) do not
  // count as a change.
  function normalize(html) {
    var tpl = document.createElement('template');
    tpl.innerHTML = html;
    return tpl.innerHTML.trim();
  }

  async function hydrateRecent(data) {
    var list = document.querySelector('[data-murlog-hydrate="recent"]');
    var count = Number(data.recent_count) || 0;
    if (!list || !data.posts_api || count <= 0) return;
    var tpl = Handlebars && Handlebars.templates && Handlebars.templates['sidebar-recent'];
    if (!tpl) return;
    var sep = data.posts_api.indexOf('?') < 0 ? '?' : '&';
    var res = await fetch(data.posts_api + sep + 'limit=' + encodeURIComponent(String(count)), {
      credentials: 'omit',
      headers: { Accept: 'application/json' }
    });
    if (!res.ok) return;
    var body = await res.json();
    var posts = body && Array.isArray(body.posts) ? body.posts.slice(0, count) : [];
    var html = normalize(tpl({ recent: posts }));
    if (html !== normalize(list.innerHTML)) list.innerHTML = html;
  }

  function loadScript(src) {
    if (loaded[src]) return loaded[src];
    loaded[src] = new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = src;
      s.async = true;
      s.charset = 'utf-8';
      s.addEventListener('load', function () { resolve(); });
      s.addEventListener('error', function () { reject(new Error('cannot load ' + src)); });
      document.head.appendChild(s);
    });
    return loaded[src];
  }

  // startHatenaStar points Hatena Star at the share area's entry (its
  // hidden permalink) and starts it from here, after hydration, so the
  // widget never rewrites the server HTML before the page is live.
  function startHatenaStar() {
    var Hatena = window.Hatena;
    if (!Hatena || !Hatena.Star) return;
    Hatena.Star.SiteConfig = {
      entryNodes: {
        'span.hatena-star': {
          uri: 'a.hatena-star-uri',
          title: 'a.hatena-star-uri',
          container: 'span.hatena-star-slot'
        }
      }
    };
    var loader = Hatena.Star.EntryLoader;
    var nodes = document.querySelectorAll('.hatena-star');
    if (loader && typeof loader.loadNewEntries === 'function') {
      for (var i = 0; i < nodes.length; i++) loader.loadNewEntries(nodes[i].parentNode);
    }
  }

  function loadShare(data) {
    var ids = Array.isArray(data.share) ? data.share : [];
    var jobs = [];
    ids.forEach(function (id) {
      var list = Object.prototype.hasOwnProperty.call(WIDGETS, id) ? WIDGETS[id] : [];
      list.forEach(function (w) {
        if (!document.querySelector(w.needs)) return;
        jobs.push(loadScript(w.src).then(function () {
          if (w.then) w.then();
        }).catch(function () {}));
      });
    });
    return Promise.all(jobs);
  }

  // done marks the page as hydrated (<html data-murlog-hydrated>): "done",
  // or "error" when the sidebar could not be refreshed (the server's copy
  // stays). Tests and later scripts wait for it.
  function done(state) {
    document.documentElement.setAttribute('data-murlog-hydrated', state);
  }

  // offlineWorker follows the runtime pointer, which the page asks for
  // (it is not in the HTML: pages are rendered once, switches flip at any
  // time). Off unregisters the reader worker and deletes its caches, so
  // a switch flipped after the page was rendered still holds. A pointer
  // that cannot be read changes nothing. <html data-murlog-sw> ends as
  // "on", "off", "unknown" or "none" (no worker support); tests wait for
  // it.
  function offlineWorker() {
    var sw = navigator.serviceWorker;
    var say = function (state) { document.documentElement.setAttribute('data-murlog-sw', state); };
    if (!sw || !window.caches) return say('none');
    fetch('/api/pub/runtime', { credentials: 'omit', headers: { Accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (rt) {
        if (!rt || typeof rt.service_worker !== 'boolean') return 'unknown';
        if (rt.service_worker) {
          return sw.register('/sw.js', { scope: '/', updateViaCache: 'none' }).then(function () { return 'on'; });
        }
        // Root-scoped registrations only: the owner's app at /my/ has a
        // worker of its own, which the switch is not about.
        var root = location.origin + '/';
        return sw.getRegistrations().then(function (regs) {
          return Promise.all(regs.filter(function (r) { return r.scope === root; })
            .map(function (r) { return r.unregister(); }));
        }).then(function () { return caches.keys(); }).then(function (keys) {
          return Promise.all(keys.filter(function (k) { return k.indexOf('murlog-blog-') === 0; })
            .map(function (k) { return caches.delete(k); }));
        }).then(function () { return 'off'; });
      })
      .catch(function () { return 'unknown'; })
      .then(say);
  }

  function start() {
    offlineWorker();
    var data = readData();
    if (!data) return done('done');
    registerHelpers();
    var state = 'done';
    hydrateRecent(data)
      .catch(function () { state = 'error'; })
      .then(function () { return loadShare(data); })
      .catch(function () {})
      .then(function () { done(state); });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
