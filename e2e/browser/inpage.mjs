// Code that runs inside the page, kept apart from the runner in blog.mjs.
// Both functions are serialised by playwright-core (page.addInitScript,
// page.evaluate), so they may use nothing but their arguments and the
// page's own globals.

// watch is injected before any page script (page.addInitScript: the
// browser evaluates it itself, so it is not an inline script and the
// page's CSP does not apply to it). It records, in window.__murlogWatch:
// CSP violations, layout shifts (with whether hydration had finished
// when each happened), and the external scripts inserted by script — a
// widget script must be inserted by the share loader, never be in the
// server's HTML.
export function watch() {
  const w = { csp: [], shifts: [], inserted: [], hydratedAt: null };
  Object.defineProperty(window, '__murlogWatch', { value: w });
  const hydrated = () =>
    document.documentElement.hasAttribute('data-murlog-hydrated') ||
    (document.querySelector('[data-murlog-hydrate]') !== null &&
      [...document.querySelectorAll('[data-murlog-hydrate]')].every((e) => e.hasAttribute('data-hydrated')));
  document.addEventListener('securitypolicyviolation', (e) => {
    w.csp.push({ directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber, sample: e.sample });
  });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.hadRecentInput) continue;
        w.shifts.push({
          value: e.value, time: e.startTime, afterHydration: w.hydratedAt !== null,
          sources: (e.sources || []).map((s) => {
            const n = s.node;
            const name = n && n.nodeType === 1
              ? n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + (typeof n.className === 'string' && n.className.trim() ? '.' + n.className.trim().split(/\s+/).join('.') : '')
              : String(n && n.nodeName);
            const r = (b) => `${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.width)}x${Math.round(b.height)}`;
            return `${name} ${r(s.previousRect)} -> ${r(s.currentRect)}`;
          }),
        });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  } catch (err) {
    w.csp.push({ directive: 'harness', blocked: 'PerformanceObserver layout-shift unavailable: ' + err });
  }
  // Parser-inserted scripts are seen here too; the runner tells them
  // apart by comparing with the server's HTML.
  new MutationObserver((records) => {
    if (w.hydratedAt === null && hydrated()) w.hydratedAt = performance.now();
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && n.tagName === 'SCRIPT' && n.src && new URL(n.src, location.href).origin !== location.origin) {
          w.inserted.push({ src: n.src, hydrated: w.hydratedAt !== null, time: performance.now() });
        }
      }
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-murlog-hydrated', 'data-hydrated'] });
}

// inspect reads what the runner checks from the loaded page.
export function inspect() {
  const doc = document;
  const meta = (sel) => {
    const e = doc.querySelector(sel);
    return e ? e.getAttribute('content') : null;
  };
  const ld = [];
  for (const s of doc.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      ld.push({ ok: true, value: JSON.parse(s.textContent) });
    } catch (err) {
      ld.push({ ok: false, error: String(err), text: s.textContent.slice(0, 200) });
    }
  }
  // Share elements by service, in document order: the widget forms of the
  // horizontal themes and the compact links of the vertical one.
  const services = {
    x: 'a.twitter-share-button, a[href^="https://twitter.com/share"], a[href^="https://twitter.com/intent/"], a[href^="https://x.com/intent/"]',
    facebook: 'iframe[src^="https://www.facebook.com/plugins/share_button.php"], a[href^="https://www.facebook.com/sharer"], a[href^="https://www.facebook.com/share"]',
    line: 'a[href^="https://social-plugins.line.me/lineit/share"], a[href^="https://line.me/R/msg/"]',
    hatena: 'a.hatena-bookmark-button, a[href^="https://b.hatena.ne.jp/entry"], a[href^="https://b.hatena.ne.jp/add"]',
  };
  const all = [...doc.querySelectorAll(Object.values(services).join(', '))];
  const share = {};
  for (const [id, sel] of Object.entries(services)) {
    const els = [...doc.querySelectorAll(sel)];
    if (!els.length) continue;
    share[id] = {
      index: all.indexOf(els[0]),
      urls: els.map((e) => {
        const attr = e.getAttribute('data-url') || e.getAttribute('data-hatena-bookmark-url');
        if (attr) return attr;
        const raw = e.getAttribute('href') || e.getAttribute('src') || '';
        try {
          const u = new URL(raw, location.href);
          for (const k of ['url', 'href', 'u']) if (u.searchParams.get(k)) return u.searchParams.get(k);
          const m = u.pathname.match(/^\/entry\/(?:s\/)?(.+)$/); // b.hatena.ne.jp/entry/s/host/path
          if (m && m[1]) return null;
        } catch (err) { /* reported as no URL */ }
        return null;
      }).filter((u) => u !== null),
    };
  }
  const hydrateEls = [...doc.querySelectorAll('[data-murlog-hydrate]')];
  const article = doc.querySelector('main article, article');
  const header = doc.querySelector('body > header, header');
  const se = doc.scrollingElement || doc.documentElement;
  return {
    url: location.href,
    lang: doc.documentElement.getAttribute('lang'),
    title: doc.title,
    canonical: doc.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? null,
    og: {
      title: meta('meta[property="og:title"]'), type: meta('meta[property="og:type"]'),
      url: meta('meta[property="og:url"]'), image: meta('meta[property="og:image"]'),
      description: meta('meta[property="og:description"]'), siteName: meta('meta[property="og:site_name"]'),
    },
    ld,
    share,
    shareArea: doc.querySelector('[data-murlog-share], .share, .murlog-share') !== null,
    hydrate: {
      elements: hydrateEls.map((e) => e.getAttribute('data-murlog-hydrate')),
      html: doc.documentElement.getAttribute('data-murlog-hydrated'),
      done: hydrateEls.length > 0 && hydrateEls.every((e) => e.hasAttribute('data-hydrated')),
    },
    // Google Analytics' queue (analytics.js pushes arguments objects).
    dataLayer: Array.isArray(window.dataLayer)
      ? window.dataLayer.map((a) => { try { return JSON.parse(JSON.stringify(Array.from(a))); } catch (err) { return [String(err)]; } })
      : null,
    writingMode: article ? getComputedStyle(article).writingMode : null,
    hasArticle: article !== null,
    scrollWidth: se.scrollWidth,
    innerWidth: window.innerWidth,
    headerWidth: header ? header.getBoundingClientRect().width : null,
    cls: window.__murlogWatch.shifts.reduce((s, e) => s + e.value, 0),
    // When hydration started: the first request to the public read API
    // (resource timing), so that shifts from then on are the hydration's
    // even from a script that does not say when it is done.
    hydrationStart: performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/pub/'))
      .reduce((m, e) => Math.min(m, e.startTime), Infinity),
    shifts: window.__murlogWatch.shifts,
    csp: window.__murlogWatch.csp,
    inserted: window.__murlogWatch.inserted,
    brokenImages: [...doc.images].filter((i) => i.complete && i.naturalWidth === 0 && i.getAttribute('src')).map((i) => i.currentSrc || i.src),
  };
}
