// The checks of one page load (blog.mjs gathers, this judges): each
// returns readable failure lines, none when the page is right.

// The fixed order of the share buttons (issue 8, point 6).
export const SHARE_ORDER = ['x', 'facebook', 'line', 'hatena'];

// Families of external hosts, by what enables them.
const FAMILIES = {
  x: /(^|\.)(twitter\.com|x\.com|twimg\.com)$/,
  facebook: /(^|\.)(facebook\.com|facebook\.net|fbcdn\.net)$/,
  line: /(^|\.)(line\.me|line-scdn\.net)$/,
  hatena: /(^|\.)(hatena\.ne\.jp|hatena\.com|st-hatena\.com)$/,
  ga: /(^|\.)(googletagmanager\.com|google-analytics\.com)$/,
};
const SHARE_FAMILIES = ['x', 'facebook', 'line', 'hatena'];

// The largest layout shift hydration may cause: it replaces a list only
// when its HTML differs, so there should be none at all.
export const MAX_HYDRATION_CLS = 0.01;
// The widest space justified text may leave between two words of a line
// (in em of its font). Justified lines of ordinary words stay well under
// 1 em; a line holding the last piece of a very long word and one more
// word stretches its single space by up to a piece's width (about 2 em:
// markup.BreakLongWords breaks such words every 8 characters). A line
// stretched around an address or a word that could not break at all
// leaves 3 em and more (3.4–14.6 em before the fix).
export const MAX_JUSTIFY_GAP_EM = 2.5;

// The largest cumulative layout shift of the whole load (Web Vitals'
// "good"); above MAX_HYDRATION_CLS it is a warning.
export const MAX_CLS = 0.1;

function family(host) {
  for (const [id, re] of Object.entries(FAMILIES)) if (re.test(host)) return id;
  return null;
}

function enabledShare(spec, pg) {
  if (!pg.share) return [];
  return SHARE_ORDER.filter((id) => (spec.share || []).includes(id));
}

// expectedScripts says which external script families a page may request
// and which it must: widget scripts only on a post page with the widget
// enabled (horizontal themes load X's and Hatena's; the vertical theme's
// compact links need none for X, Facebook and LINE), gtag.js only with a
// measurement id.
export function expectedScripts(spec, pg) {
  const share = enabledShare(spec, pg);
  const allowed = new Set();
  const required = new Set();
  if (share.includes('hatena')) {
    allowed.add('hatena');
    if (!spec.vertical) required.add('hatena');
  }
  if (share.includes('x') && !spec.vertical) {
    allowed.add('x');
    required.add('x');
  }
  if (spec.ga) {
    allowed.add('ga');
    if (pg.kind !== 'error') required.add('ga');
  }
  return { allowed: [...allowed], required: [...required] };
}

export function checkPage(spec, pg, width, r) {
  const f = [];
  if (r.harnessError) {
    f.push(`could not load or inspect the page: ${r.harnessError}`);
    return f;
  }
  const want = pg.status ?? 200;
  if (r.status !== want) f.push(`HTTP status ${r.status}, want ${want}`);
  if (!r.title || !r.title.trim()) f.push('empty <title>');
  if (!r.lang) f.push('<html> has no lang');
  else if (pg.lang && r.lang !== pg.lang) f.push(`<html lang="${r.lang}">, want "${pg.lang}"`);
  f.push(...headers(r), ...errors(pg, r), ...hydration(pg, r), ...layout(spec, pg, width, r), ...reach(pg, width, r));
  f.push(...shareButtons(spec, pg, r), ...externals(spec, pg, r), ...analytics(spec, pg, r), ...metadata(pg, r));
  return [...new Set(f)];
}

// analytics checks the Google Analytics queue: with a measurement id, the
// site and post pages configure it with the automatic page_view off and
// send one page_view with the seed's parameters; without one, nothing.
function analytics(spec, pg, r) {
  const f = [];
  const q = r.dataLayer || [];
  const views = q.filter((a) => a[0] === 'event' && a[1] === 'page_view');
  if (!spec.ga) {
    if (views.length) f.push(`a page_view was queued with no measurement id set: ${JSON.stringify(views)}`);
    return f;
  }
  if (pg.kind !== 'site' && pg.kind !== 'post') return f;
  const config = q.find((a) => a[0] === 'config' && a[1] === spec.ga);
  if (!config) f.push(`gtag is not configured with ${spec.ga} (queue: ${JSON.stringify(q)})`);
  else if (!config[2] || config[2].send_page_view !== false) f.push(`gtag config ${JSON.stringify(config)} leaves the automatic page_view on`);
  if (views.length !== 1) {
    f.push(`${views.length} page_view events queued, want 1`);
    return f;
  }
  const p = views[0][2] || {};
  if (p.content_type !== pg.kind) f.push(`page_view content_type ${JSON.stringify(p.content_type)}, want ${pg.kind}`);
  if (!/^murlog-./.test(p.content_group || '')) f.push(`page_view content_group ${JSON.stringify(p.content_group)}, want murlog-<persona>`);
  if (!p.content_id) f.push('page_view without content_id');
  else if (pg.id && p.content_id !== pg.id) f.push(`page_view content_id ${JSON.stringify(p.content_id)}, want the post id ${pg.id}`);
  if (!p.page_title) f.push('page_view without page_title');
  if (!p.page_location || new URL(p.page_location, r.url).origin !== new URL(r.url).origin) f.push(`page_view page_location ${JSON.stringify(p.page_location)} is not this site`);
  return f;
}

// headers checks the security headers every blog page carries.
function headers(r) {
  const f = [];
  const h = r.headers || {};
  const csp = h['content-security-policy'];
  if (!csp) f.push('no Content-Security-Policy header');
  else {
    const dirs = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map((d) => [d[0], d.slice(1)]));
    const script = dirs['script-src'] || dirs['default-src'] || [];
    for (const bad of ["'unsafe-inline'", "'unsafe-eval'"]) if (script.includes(bad)) f.push(`CSP script-src allows ${bad}: ${csp}`);
    if (!dirs['frame-ancestors']) f.push(`CSP without frame-ancestors: ${csp}`);
  }
  if ((h['x-content-type-options'] || '').toLowerCase() !== 'nosniff') f.push(`X-Content-Type-Options ${JSON.stringify(h['x-content-type-options'])}, want nosniff`);
  if (!h['referrer-policy']) f.push('no Referrer-Policy header');
  return f;
}

function errors(pg, r) {
  const f = [];
  const pageURL = r.url;
  for (const c of r.console) {
    // A themed 404/410 makes chromium log its own status for the document.
    if ((pg.status ?? 200) !== 200 && /^Failed to load resource/.test(c.text) && c.url === pageURL) continue;
    f.push(`console error: ${c.text}${c.url ? ` (${c.url}${c.line ? ':' + c.line : ''})` : ''}`);
  }
  for (const e of r.pageErrors) f.push(`page error: ${e}`);
  for (const c of r.csp) f.push(`CSP violation: ${c.directive} blocked ${c.blocked || '(inline)'}${c.source ? ` in ${c.source}:${c.line}` : ''}${c.sample ? ` "${c.sample}"` : ''}`);
  // The console repeats what the listener saw; it alone sees frames' reports.
  if (!r.csp.length) for (const c of r.cspConsole) f.push(`CSP report in the console: ${c}`);
  for (const q of r.failedRequests) f.push(`request failed: ${q}`);
  for (const src of r.brokenImages) if (new URL(src).origin === new URL(r.url).origin) f.push(`image did not load: ${src}`);
  return f;
}

function hydration(pg, r) {
  const f = [];
  const els = r.hydrate.elements;
  if (pg.hydrate && !els.includes('recent')) f.push('no [data-murlog-hydrate="recent"] list (the sidebar\'s recent posts)');
  if (els.length) {
    if (!r.hydrated) f.push(`hydration never finished: no html[data-murlog-hydrated] (nor data-hydrated on every [data-murlog-hydrate]) and no answered posts API within 10 s; elements: ${els.join(', ')}`);
    else if (!r.hydrate.html && !r.hydrate.done) f.push('hydration finished without saying so: the harness waited for the posts API and a quiet network; hydrate.js should set html[data-murlog-hydrated="done"] when every list and the share loader are done');
    else if (/^(error|fail)/i.test(r.hydrate.html || '')) f.push(`hydration reported ${r.hydrate.html}`);
    if (els.includes('recent') && !r.api.some((a) => /^GET \/api\/pub\/personas\/[^/]+\/posts/.test(a))) {
      f.push(`hydration of the recent list fetched no /api/pub/personas/…/posts (API requests: ${r.api.join(', ') || 'none'})`);
    }
  }
  const describe = (list) => list.filter((s) => s.value > 0.0005)
    .map((s) => `${s.value.toFixed(4)} at ${Math.round(s.time)} ms [${s.sources.join('; ')}]`).join(' | ');
  const during = r.shifts.filter((s) => s.afterHydration || s.time >= (r.hydrationStart ?? Infinity));
  r.hydrationCLS = during.reduce((a, s) => a + s.value, 0);
  if (r.hydrationCLS > MAX_HYDRATION_CLS) f.push(`layout shift ${r.hydrationCLS.toFixed(4)} during hydration (> ${MAX_HYDRATION_CLS}): ${describe(during)}`);
  if (r.cls > MAX_CLS) f.push(`cumulative layout shift ${r.cls.toFixed(4)} while loading (> ${MAX_CLS}): ${describe(r.shifts)}`);
  else if (r.cls > MAX_HYDRATION_CLS) r.warnings.push(`cumulative layout shift ${r.cls.toFixed(4)} while loading: ${describe(r.shifts)}`);
  return f;
}

function layout(spec, pg, width, r) {
  const f = [];
  if (spec.vertical) {
    if (pg.kind === 'post' && r.writingMode !== 'vertical-rl') f.push(`article writing-mode is ${r.writingMode}, want vertical-rl`);
    if (r.headerWidth !== null && r.headerWidth > r.innerWidth + 1) f.push(`the header is ${Math.round(r.headerWidth)} px wide in a ${r.innerWidth} px window`);
  } else {
    if (r.hasArticle && r.writingMode !== 'horizontal-tb') f.push(`article writing-mode is ${r.writingMode} in a horizontal theme`);
    if (width <= 360 && r.scrollWidth > r.innerWidth + 1) f.push(`horizontal overflow at ${width} px: scrollWidth ${r.scrollWidth} > innerWidth ${r.innerWidth}`);
  }
  if (pg.kind === 'post' && !r.hasArticle) f.push('post page without an <article>');
  return f;
}

// reach checks that a reader can see all the text (inpage.mjs
// layoutFacts): no text box where no scrolling brings it, no clipped
// placeholder, a tag page naming each tag of a post once, a vertical box
// that scrolls sideways starting at its right edge with a cue that there
// is more, Latin in vertical text lying sideways and unbroken, and no
// wide gaps in justified text.
function reach(pg, width, r) {
  const f = [];
  if (!r.textBoxes) f.push('no text box measured: the reach check saw no text');
  for (const o of r.outside || []) {
    f.push(`text outside the page's scrollable area at ${width} px: "${o.text}" at ${o.x},${o.y} (${o.w}×${o.h}) in ${o.in}, ${o.why}`);
  }
  for (const p of r.placeholders || []) {
    if (p.need > p.room) f.push(`the placeholder "${p.placeholder}" of ${p.input} is clipped at ${width} px: it needs ${p.need} px, the input has ${p.room}`);
  }
  if (pg.kind === 'tag') {
    (r.tagsShown || []).forEach((tags, i) => {
      const seen = {};
      for (const t of tags) seen[t] = (seen[t] || 0) + 1;
      for (const [t, n] of Object.entries(seen)) if (n > 1) f.push(`a tag page shows #${t} ${n} times in its post #${i + 1}`);
    });
  }
  for (const v of r.verticalScrollers || []) {
    if (Math.abs(v.scrollLeft) > 1) f.push(`${v.el} scrolls sideways but does not start at its right edge (scrollLeft ${v.scrollLeft})`);
    if (!v.cue) f.push(`${v.el} scrolls sideways (${v.overflow} px more) with no cue that there is more`);
  }
  const latin = r.latin || { fullWidth: [], split: [] };
  if (latin.fullWidth.length) f.push(`vertical text sets Latin upright full-width (${latin.fullWidth.join(', ')}): Latin words should lie sideways`);
  if (latin.split.length) f.push(`vertical text splits short Latin words across lines: ${latin.split.join(', ')}`);
  for (const g of r.justifyGaps || []) {
    if (g.em > MAX_JUSTIFY_GAP_EM) f.push(`justified text leaves a ${g.gap} px (${g.em.toFixed(1)} em) gap between "${g.after}" and "${g.before}" in ${g.block} at ${width} px`);
  }
  return f;
}

function shareButtons(spec, pg, r) {
  const f = [];
  const want = enabledShare(spec, pg);
  const got = Object.keys(r.share);
  if (!want.length) {
    if (got.length) f.push(`share buttons on a page that must have none: ${got.join(', ')}`);
    return f;
  }
  for (const id of want) if (!r.share[id]) f.push(`no ${id} share button`);
  for (const id of got) if (!want.includes(id)) f.push(`${id} share button shown but not enabled`);
  const order = SHARE_ORDER.filter((id) => r.share[id]);
  const byPos = [...order].sort((a, b) => r.share[a].index - r.share[b].index);
  if (order.join() !== byPos.join()) f.push(`share buttons in the order ${byPos.join(', ')}, want ${order.join(', ')}`);
  for (const id of got) {
    for (const u of r.share[id].urls) {
      if (u !== r.canonical) f.push(`${id} shares ${u}, want the canonical URL ${r.canonical}`);
    }
  }
  if (r.canonical && r.canonical.includes('?')) f.push(`canonical URL has a query: ${r.canonical}`);
  return f;
}

function externals(spec, pg, r) {
  const f = [];
  const { allowed, required } = r.expectedScripts;
  const share = enabledShare(spec, pg);
  const seen = new Set();
  for (const src of r.externalScripts) {
    const fam = family(new URL(src).hostname);
    if (!fam || !allowed.includes(fam)) f.push(`external script requested that this page must not load: ${src}`);
    else seen.add(fam);
    if (fam && SHARE_FAMILIES.includes(fam) && serverHasScript(r.html, src)) {
      f.push(`widget script ${src} is in the server's HTML: it must be loaded by the share loader after hydration`);
    }
  }
  for (const fam of required) if (!seen.has(fam)) f.push(`no ${fam} script requested (enabled on this page)`);
  for (const q of r.external) {
    if (q.type === 'script' || q.type === 'image') continue;
    const fam = family(new URL(q.url).hostname);
    const ok = (q.type === 'document' && fam === 'facebook' && share.includes('facebook')) ||
      (fam !== null && allowed.includes(fam));
    if (!ok) f.push(`external ${q.type} request: ${q.url}`);
  }
  return f;
}

function serverHasScript(html, src) {
  const u = new URL(src);
  const re = new RegExp(`<script[^>]*\\ssrc=["']?(https?:)?//${u.hostname.replace(/\./g, '\\.')}${u.pathname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
  return re.test(html || '');
}

// metadata checks JSON-LD and Open Graph against what the page is.
function metadata(pg, r) {
  const f = [];
  const nodes = [];
  for (const b of r.ld) {
    if (!b.ok) {
      f.push(`JSON-LD does not parse: ${b.error}: ${b.text}`);
      continue;
    }
    for (const v of [].concat(b.value)) {
      if (!v || typeof v !== 'object') continue;
      const ctx = JSON.stringify(v['@context'] ?? '');
      if (!ctx.includes('schema.org')) f.push(`JSON-LD without a schema.org @context: ${JSON.stringify(v).slice(0, 120)}`);
      nodes.push(v, ...[].concat(v['@graph'] ?? []));
    }
  }
  if (!pg.jsonld) return f;
  const is = (n, t) => [].concat(n && n['@type']).includes(t);
  const node = nodes.find((n) => is(n, pg.jsonld));
  if (!node) {
    f.push(`no JSON-LD ${pg.jsonld} (types: ${nodes.map((n) => n['@type']).join(', ') || 'none'})`);
  }
  const canonical = r.canonical;
  if (!canonical) f.push('no <link rel="canonical">');
  else {
    const c = new URL(canonical, r.url);
    if (c.href !== canonical) f.push(`canonical URL is not absolute: ${canonical}`);
    if (c.origin !== new URL(r.url).origin) f.push(`canonical URL ${canonical} is on another origin than ${r.url}`);
    if (pg.kind === 'post' && c.pathname !== pg.path.split('?')[0]) f.push(`canonical URL ${canonical}, want the post's path ${pg.path}`);
  }
  const og = r.og;
  if (!og.title) f.push('no og:title');
  if (!og.url) f.push('no og:url');
  else if (og.url !== canonical) f.push(`og:url ${og.url} differs from the canonical URL ${canonical}`);
  const wantType = pg.kind === 'post' ? ['article'] : ['profile', 'website'];
  if (!wantType.includes(og.type)) f.push(`og:type ${og.type}, want ${wantType.join(' or ')}`);
  if (!og.image) f.push('no og:image (every page has one: its own, the avatar or the theme\'s default)');
  if (!og.description) f.push('no og:description');
  if (pg.image && og.image !== pg.image) f.push(`og:image ${og.image}, want the featured image ${pg.image}`);
  if (og.image && !/^https?:\/\//.test(og.image)) f.push(`og:image is not an absolute URL: ${og.image}`);
  if (pg.title && og.title && !og.title.includes(pg.title)) f.push(`og:title "${og.title}" does not name the post "${pg.title}"`);
  if (!node) return f;
  const nodeURL = node.url ?? node.mainEntityOfPage?.['@id'] ?? node.mainEntityOfPage;
  if (nodeURL && canonical && nodeURL !== canonical) f.push(`JSON-LD ${pg.jsonld} url ${JSON.stringify(nodeURL)}, want ${canonical}`);
  if (pg.jsonld === 'BlogPosting') {
    if (!node.headline && pg.title) f.push('BlogPosting without headline');
    if (pg.title && node.headline !== pg.title) f.push(`BlogPosting headline ${JSON.stringify(node.headline)}, want ${JSON.stringify(pg.title)}`);
    if (!node.datePublished || Number.isNaN(Date.parse(node.datePublished))) f.push(`BlogPosting datePublished ${JSON.stringify(node.datePublished)} is not a date`);
    const author = [].concat(node.author ?? [])[0];
    if (!author || !(author.name || typeof author === 'string')) f.push('BlogPosting without an author name');
    if (!nodeURL) f.push('BlogPosting without url or mainEntityOfPage');
    if (pg.image) {
      const imgs = [].concat(node.image ?? []).map((i) => (typeof i === 'string' ? i : i && i.url));
      if (!imgs.includes(pg.image)) f.push(`BlogPosting image ${JSON.stringify(node.image)}, want ${pg.image}`);
    }
  }
  if (pg.jsonld === 'ProfilePage') {
    const main = node.mainEntity;
    if (!main || !(is(main, 'Person') || is(main, 'Organization'))) f.push(`ProfilePage mainEntity ${JSON.stringify(main)}, want a Person`);
    else if (!main.name) f.push('ProfilePage mainEntity without a name');
  }
  return f;
}
