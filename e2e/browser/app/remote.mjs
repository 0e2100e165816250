// A third "server" on loopback, played here: one account, ghost, whose
// display name, bio and posts are raw HTML with scripts (as a hostile or
// careless server may send them: murlog must sanitize what it shows), and
// whose inbox refuses deliveries with 410 Gone until told to accept them
// (a delivery refused for good goes to the dead letters at once).
import http from 'node:http';

export const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1> ghost';
export const HOSTILE_HTML = '<p>Hello <b>bold</b></p><img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>' +
  '<a href="javascript:window.__pwned=1">click</a><iframe src="javascript:window.__pwned=1"></iframe>';

const AS = 'https://www.w3.org/ns/activitystreams';

export async function startRemote() {
  const state = { refuse: true, deliveries: [] };
  const server = http.createServer((req, res) => {
    const base = 'http://' + req.headers.host;
    const actor = base + '/users/ghost';
    const json = (status, body, type = 'application/activity+json') => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(JSON.stringify(body));
    };
    const note = (n) => ({
      '@context': AS, id: `${base}/notes/${n}`, type: 'Note', attributedTo: actor, url: `${base}/notes/${n}`,
      content: HOSTILE_HTML + ` <span>ghost note ${n}</span>`, published: '2026-01-02T03:04:05Z',
      to: [AS + '#Public'], cc: [actor + '/followers'],
    });
    const url = new URL(req.url, base);
    if (req.method === 'POST' && url.pathname === '/users/ghost/inbox') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        let type = '?';
        try {
          type = JSON.parse(body).type;
        } catch {}
        state.deliveries.push({ type, accepted: !state.refuse });
        res.writeHead(state.refuse ? 410 : 202);
        res.end();
      });
      return;
    }
    switch (url.pathname) {
      case '/.well-known/webfinger':
        return json(200, { subject: 'acct:ghost@' + req.headers.host, links: [{ rel: 'self', type: 'application/activity+json', href: actor }] }, 'application/jrd+json');
      case '/users/ghost':
        return json(200, {
          '@context': [AS, 'https://w3id.org/security/v1'], id: actor, type: 'Person', preferredUsername: 'ghost',
          name: HOSTILE_NAME, summary: HOSTILE_HTML, url: actor, inbox: actor + '/inbox', outbox: actor + '/outbox',
          followers: actor + '/followers', following: actor + '/following',
        });
      case '/users/ghost/outbox':
        return json(200, { '@context': AS, id: actor + '/outbox', type: 'OrderedCollection', totalItems: 2,
          orderedItems: [1, 2].map((n) => ({ id: `${base}/notes/${n}/activity`, type: 'Create', actor, object: note(n) })) });
      case '/users/ghost/followers':
      case '/users/ghost/following':
        return json(200, { '@context': AS, id: base + url.pathname, type: 'OrderedCollection', totalItems: 0, orderedItems: [] });
      case '/notes/1':
      case '/notes/2':
        return json(200, note(Number(url.pathname.slice(-1))));
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = '127.0.0.1:' + server.address().port;
  return {
    host, acct: '@ghost@' + host, actor: `http://${host}/users/ghost`, state,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
