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

// layoutFacts measures what the layout checks judge (serialised like
// inspect, so it may use only page globals):
//
//  - outside: text boxes no one can scroll to. Every text node's client
//    rects are followed up its ancestors: a scroll container (overflow
//    auto or scroll) must hold the box inside its scrollable overflow —
//    which starts at the right edge and runs into negative x for
//    vertical-rl (and rtl) — and is then seen through its own box; a
//    clipping ancestor (hidden, clip) must show it inside its box, unless
//    it cuts text on purpose with a visible cue (text-overflow: ellipsis,
//    line-clamp) or is the visually-hidden pattern (clip, clip-path, or
//    1×1 px). Last the box must lie in the document's scrollable extent.
//  - placeholders: inputs and how wide their placeholder is beside the
//    room the input has for it.
//  - tagsShown: per article, the hashtag links a reader sees (text and
//    href), to tell a tag shown twice.
//  - verticalScrollers: vertical-rl boxes that scroll sideways: where the
//    scroll starts and whether a cue says there is more.
//  - justifyGaps: in justified text, the widest space between two words
//    on a line that is not its block's last.
//  - latin: in vertical text, Latin set upright full-width, and words
//    shorter than a line split across lines.
export function layoutFacts() {
  const doc = document;
  const se = doc.scrollingElement || doc.documentElement;
  const TOL = 1;
  const rightOrigin = (cs) => cs.writingMode.startsWith('vertical-rl') || cs.writingMode === 'sideways-rl' ||
    (cs.writingMode === 'horizontal-tb' && cs.direction === 'rtl');
  // The scrollable overflow of el, in viewport coordinates now.
  const scrollArea = (el, isRoot) => {
    const cs = getComputedStyle(el);
    const r = isRoot ? { left: 0, top: 0 } : el.getBoundingClientRect();
    const left = r.left + (isRoot ? 0 : el.clientLeft);
    const top = r.top + (isRoot ? 0 : el.clientTop);
    const cw = isRoot ? se.clientWidth : el.clientWidth;
    const sl = el.scrollLeft;
    const st = el.scrollTop;
    let x0;
    let x1;
    if (rightOrigin(isRoot ? getComputedStyle(doc.documentElement) : cs)) {
      x1 = left + cw - sl;
      x0 = x1 - el.scrollWidth;
    } else {
      x0 = left - sl;
      x1 = x0 + el.scrollWidth;
    }
    return { x0, x1, y0: top - st, y1: top - st + el.scrollHeight };
  };
  const padBox = (el) => {
    const r = el.getBoundingClientRect();
    const x0 = r.left + el.clientLeft;
    const y0 = r.top + el.clientTop;
    return { x0, x1: x0 + el.clientWidth, y0, y1: y0 + el.clientHeight };
  };
  const onPurpose = (el, cs) => cs.textOverflow === 'ellipsis' || (cs.webkitLineClamp && cs.webkitLineClamp !== 'none') ||
    cs.clipPath !== 'none' || (cs.clip && cs.clip !== 'auto') || (el.clientWidth <= 1 && el.clientHeight <= 1);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const outside = [];
  let textBoxes = 0;
  const walker = doc.createTreeWalker(doc.body || doc.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.data.trim()) continue;
    const parent = n.parentElement;
    if (!parent || parent.closest('script, style, noscript, template, option, select, textarea')) continue;
    const pcs = getComputedStyle(parent);
    if (pcs.visibility !== 'visible' || pcs.position === 'fixed') continue;
    const range = doc.createRange();
    range.selectNodeContents(n);
    for (const rc of range.getClientRects()) {
      if (rc.width === 0 && rc.height === 0) continue;
      textBoxes++;
      let box = { x0: rc.left, x1: rc.right, y0: rc.top, y1: rc.bottom };
      let why = null;
      let skip = false;
      for (let el = parent; el && el !== doc.documentElement && el !== doc.body; el = el.parentElement) {
        const cs = getComputedStyle(el);
        if (cs.position === 'fixed') { skip = true; break; }
        const ox = cs.overflowX;
        const oy = cs.overflowY;
        if (ox === 'visible' && oy === 'visible') continue;
        if (onPurpose(el, cs)) { skip = true; break; }
        const pb = padBox(el);
        const sa = scrollArea(el, false);
        for (const [axis, o] of [['x', ox], ['y', oy]]) {
          if (o === 'visible') continue;
          const lo = axis + '0';
          const hi = axis + '1';
          const area = o === 'auto' || o === 'scroll' ? sa : pb;
          if (box[lo] < area[lo] - TOL || box[hi] > area[hi] + TOL) {
            why = why || `${o === 'auto' || o === 'scroll' ? 'beyond the scrollable overflow of' : 'cut off by'} ${name(el)} (${axis})`;
          }
          // Seen from outside, the text is where the box shows it.
          box[lo] = Math.max(Math.min(box[lo], pb[hi]), pb[lo]);
          box[hi] = Math.min(Math.max(box[hi], pb[lo]), pb[hi]);
        }
        if (why) break;
      }
      if (skip) continue;
      if (!why) {
        const da = scrollArea(se, true);
        if (box.x0 < da.x0 - TOL || box.x1 > da.x1 + TOL || box.y0 < da.y0 - TOL || box.y1 > da.y1 + TOL) {
          why = `outside the document's scrollable area (x ${Math.round(da.x0)}…${Math.round(da.x1)}, y ${Math.round(da.y0)}…${Math.round(da.y1)})`;
        }
      }
      if (why && outside.length < 10) {
        outside.push({ text: n.data.trim().slice(0, 40), x: Math.round(rc.left), y: Math.round(rc.top), w: Math.round(rc.width), h: Math.round(rc.height), in: name(parent), why });
      }
      if (why) break; // one box of a text node says enough
    }
  }

  // Placeholders: the input is given its placeholder as its value for a
  // moment, so that its own scroll width says how wide the text is in the
  // room the input really has (a search input keeps room for its clear
  // button). Nothing listens: no event is sent.
  const placeholders = [];
  for (const input of doc.querySelectorAll('input[placeholder]')) {
    const ph = input.getAttribute('placeholder');
    if (!ph || !input.getClientRects().length || input.value) continue;
    input.value = ph;
    const need = input.scrollWidth;
    input.value = '';
    placeholders.push({ input: name(input), placeholder: ph, need, room: input.clientWidth });
  }

  // Tags a reader sees, per article.
  const tagsShown = [...doc.querySelectorAll('article')].map((a) => [...a.querySelectorAll('a[href*="/tags/"]')]
    .filter((l) => l.getClientRects().length > 0 && getComputedStyle(l).visibility === 'visible')
    .map((l) => decodeURIComponent(new URL(l.getAttribute('href'), location.href).pathname.replace(/^.*\/tags\//, '').replace(/\/.*$/, '')).toLowerCase()));

  // Vertical boxes that scroll sideways.
  const verticalScrollers = [];
  for (const el of doc.querySelectorAll('body *')) {
    const cs = getComputedStyle(el);
    if (!cs.writingMode.startsWith('vertical') || (cs.overflowX !== 'auto' && cs.overflowX !== 'scroll')) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    if (el.parentElement && getComputedStyle(el.parentElement).writingMode.startsWith('vertical')) continue;
    const images = [cs.backgroundImage, getComputedStyle(el, '::before').backgroundImage, getComputedStyle(el, '::after').backgroundImage].join(' ');
    verticalScrollers.push({
      el: name(el), scrollLeft: Math.round(el.scrollLeft), overflow: el.scrollWidth - el.clientWidth,
      cue: /gradient/.test(images) && /local/.test(cs.backgroundAttachment),
    });
  }

  // Gaps in justified text.
  const justifyGaps = [];
  for (const block of doc.querySelectorAll('p, li, dd, blockquote')) {
    const cs = getComputedStyle(block);
    if (cs.textAlign !== 'justify' || !cs.writingMode.startsWith('horizontal') || !block.getClientRects().length) continue;
    const em = parseFloat(cs.fontSize);
    const words = [];
    const w2 = doc.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let t = w2.nextNode(); t; t = w2.nextNode()) {
      const re = /\S+/g;
      let m;
      while ((m = re.exec(t.data))) {
        const r = doc.createRange();
        r.setStart(t, m.index);
        r.setEnd(t, m.index + m[0].length);
        const rects = [...r.getClientRects()].filter((x) => x.width > 0);
        if (rects.length) words.push({ word: m[0], first: rects[0], last: rects[rects.length - 1] });
      }
    }
    const lastLine = words.length ? Math.round(words[words.length - 1].last.top) : 0;
    let widest = null;
    for (let i = 1; i < words.length; i++) {
      const a = words[i - 1].last;
      const b = words[i].first;
      if (Math.abs(a.top - b.top) > 2 || Math.round(b.top) === lastLine) continue;
      const gap = b.left - a.right;
      if (!widest || gap > widest.gap) widest = { gap, after: words[i - 1].word.slice(0, 30), before: words[i].word.slice(0, 30) };
    }
    if (widest) justifyGaps.push({ block: name(block), em: widest.gap / em, gap: Math.round(widest.gap), after: widest.after, before: widest.before });
  }
  // Latin in vertical text: words set upright full-width (ＡＢＣ), or a
  // word shorter than a line split across two lines.
  const latin = { fullWidth: [], split: [] };
  for (const el of doc.querySelectorAll('body *')) {
    if (!getComputedStyle(el).writingMode.startsWith('vertical') || (el.parentElement && getComputedStyle(el.parentElement).writingMode.startsWith('vertical'))) continue;
    const w3 = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = w3.nextNode(); t; t = w3.nextNode()) {
      if (t.parentElement.closest('pre, code, kbd, samp') || !getComputedStyle(t.parentElement).writingMode.startsWith('vertical')) continue;
      const fw = t.data.match(/[\uff21-\uff3a\uff41-\uff5a]{2,}/);
      if (fw && latin.fullWidth.length < 5) latin.fullWidth.push(fw[0]);
      const re = /[A-Za-z]{2,15}/g;
      let m;
      while ((m = re.exec(t.data)) && latin.split.length < 5) {
        const r = doc.createRange();
        r.setStart(t, m.index);
        r.setEnd(t, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.left)));
        if (lines.size > 1) latin.split.push(m[0]);
      }
    }
  }
  return { outside, textBoxes, placeholders, tagsShown, verticalScrollers, justifyGaps, latin };
}
