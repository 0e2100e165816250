import { afterEach, describe, expect, it } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { BASE, currentAppPath, findRoute, fromURL, Link, matchPath, navigate, toURL, useLocation } from './router';
import { routes } from './routes';

afterEach(() => {
  navigate('/', { replace: true });
});

describe('paths', () => {
  it('maps app paths to URLs under /my/ and back', () => {
    expect(BASE).toBe('/my');
    expect(toURL('/')).toBe('/my/');
    expect(toURL('/compose/1')).toBe('/my/compose/1');
    expect(fromURL('/my/', '').path).toBe('/');
    expect(fromURL('/my', '').path).toBe('/');
    expect(fromURL('/my/posts/', '?state=draft').path).toBe('/posts');
    expect(fromURL('/my/posts/', '?state=draft').query.get('state')).toBe('draft');
    expect(fromURL('/elsewhere', '').path).toBe('/');
    expect(fromURL('/myself', '').path).toBe('/');
  });

  it('matches patterns with params', () => {
    expect(matchPath('/', '/')).toEqual({});
    expect(matchPath('/compose/:id', '/compose/01a2')).toEqual({ id: '01a2' });
    expect(matchPath('/compose/:id', '/compose')).toBeNull();
    expect(matchPath('/compose', '/compose/1')).toBeNull();
    expect(matchPath('/actor/:id', '/actor/a%20b')).toEqual({ id: 'a b' });
    expect(matchPath('/actor/:id', '/actor/%E0%A4%A')).toBeNull();
  });

  it('finds every screen of the route table, and none for an unknown path', () => {
    expect(findRoute(routes, '/')?.route.nav).toBe('nav.home');
    expect(findRoute(routes, '/compose/123')?.params).toEqual({ id: '123' });
    for (const p of ['/posts', '/notifications', '/follows', '/follows/followers', '/blocks', '/profile', '/site', '/queue', '/security', '/tokens', '/login', '/post/1', '/actor/1', '/actor']) {
      expect(findRoute(routes, p), p).not.toBeNull();
    }
    expect(findRoute(routes, '/nope')).toBeNull();
    expect(findRoute(routes, '/login')?.route.public).toBe(true);
  });
});

describe('navigation', () => {
  function Where() {
    const loc = useLocation();
    return <p id="where">{loc.path + '|' + loc.query.toString()}</p>;
  }

  it('navigate() pushes history and re-renders useLocation users; back pops', async () => {
    const root = document.createElement('div');
    document.body.append(root);
    await act(() => render(<Where />, root));
    expect(root.textContent).toBe('/|');
    const before = history.length;
    await act(() => navigate('/posts?state=draft'));
    expect(location.pathname).toBe('/my/posts');
    expect(root.textContent).toBe('/posts|state=draft');
    expect(currentAppPath()).toBe('/posts?state=draft');
    expect(history.length).toBe(before + 1);
    await act(() => navigate('/tokens', { replace: true }));
    expect(history.length).toBe(before + 1);
    expect(root.textContent).toBe('/tokens|');
    render(null, root);
    root.remove();
  });

  it('<Link> navigates on a plain click and leaves modifier clicks to the browser', async () => {
    const root = document.createElement('div');
    document.body.append(root);
    await act(() => render(<><Link href="/queue">Queue</Link><Where /></>, root));
    const a = root.querySelector('a')!;
    expect(a.getAttribute('href')).toBe('/my/queue');

    const ctrl = new MouseEvent('click', { bubbles: true, cancelable: true, ctrlKey: true, button: 0 });
    await act(() => {
      a.dispatchEvent(ctrl);
    });
    expect(ctrl.defaultPrevented).toBe(false); // the browser opens it (a new tab)
    expect(root.querySelector('#where')!.textContent).toBe('/|');
    history.replaceState(null, '', '/my/');

    const plain = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 });
    await act(() => {
      a.dispatchEvent(plain);
    });
    expect(plain.defaultPrevented).toBe(true);
    expect(location.pathname).toBe('/my/queue');
    expect(root.querySelector('#where')!.textContent).toBe('/queue|');
    render(null, root);
    root.remove();
  });
});
