import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { controlsStore, type Controls as ControlsState } from '../controls';
import { setLang } from '../i18n';
import { button, byLabel, callsOf, click, errorOf, failure, mount, refusal, settle, stubRPC, type, unmount } from '../settings/testing';
import { fullTime } from '../ui/basic';
import { fakeServer } from '../testing';
import Controls, { ARTIFACTS_POLL_MS } from './Controls';

const HOUR = 3600_000;
const later = new Date(Date.now() + 2 * HOUR);
later.setSeconds(0, 0);
const LATER = later.toISOString();

const state = (over: Partial<ControlsState> = {}): ControlsState => ({
  switches: { comments: true, page_views: true, inbox: false, delivery: true, link_previews: true, service_worker: true },
  lockdown: { on: false },
  lockdown_active: false,
  ...over,
});

const render = () => mount(<Controls params={{}} query={new URLSearchParams()} />);
const status = (root: HTMLElement) => root.querySelector('.lockdown-status')!.textContent;
/** The status line under a switch. */
const said = (root: HTMLElement, name: string) => root.querySelector(`.switch-${name} [role=status]`)!.textContent;

beforeEach(() => {
  setLang('en');
  controlsStore.set(null);
});
afterEach(() => {
  unmount();
  vi.useRealTimers();
});

describe('Controls', () => {
  it('shows every switch and a scheduled lockdown as the server has them', async () => {
    const stored = state({ lockdown: { on: true, from: LATER, reason: 'launch' } });
    stubRPC({ 'site.controls.get': () => stored });
    const root = await render();
    expect(byLabel(root, 'Inbox').checked).toBe(false);
    for (const name of ['Comments', 'Page views', 'Delivery', 'Link previews', 'Reader service worker']) {
      expect(byLabel(root, name).checked, name).toBe(true);
    }
    expect(root.textContent).toContain('Off: they get 503 and retry later; nothing is lost.');
    expect(root.textContent).toContain('Off: outgoing deliveries wait in the queue');
    expect(byLabel(root, 'Lockdown on').checked).toBe(true);
    expect(status(root)).toBe(`Lockdown is scheduled: it starts at ${fullTime(LATER)}.`);
    // The from time comes back in the browser's own time zone.
    const from = byLabel(root, 'From (optional)').value;
    expect(new Date(from).getTime()).toBe(later.getTime());
    expect(byLabel(root, 'Until (optional)').value).toBe('');
    expect(byLabel(root, 'Reason (optional)').value).toBe('launch');
    expect(root.textContent).toContain('6 / 200');
    // The shell's banner reads the same answer.
    expect(controlsStore.get()).toEqual(stored);
  });

  it('tells an active lockdown from an expired one', async () => {
    let answer = state({ lockdown: { on: true, until: LATER }, lockdown_active: true });
    stubRPC({ 'site.controls.get': () => answer });
    let root = await render();
    expect(status(root)).toBe(`Lockdown is active now: changes are refused until ${fullTime(LATER)}.`);
    unmount();

    const past = new Date(Date.now() - HOUR).toISOString();
    answer = state({ lockdown: { on: true, until: past } });
    stubRPC({ 'site.controls.get': () => answer });
    root = await render();
    expect(status(root)).toBe(`Lockdown has expired: it ended at ${fullTime(past)}. Changes are accepted.`);
  });

  it('sends only the flipped switch and shows what the server answered', async () => {
    const calls = stubRPC({
      'site.controls.get': () => state(),
      'site.controls.set_switches': (p) => ({ ...state(), switches: { ...state().switches, ...p } }),
    });
    const root = await render();
    await click(byLabel(root, 'Delivery'));
    expect(callsOf(calls, 'site.controls.set_switches').map((c) => c.params)).toEqual([{ delivery: false }]);
    expect(byLabel(root, 'Delivery').checked).toBe(false);
    expect(said(root, 'delivery')).toBe('Saved: Delivery is off.');

    await click(byLabel(root, 'Inbox'));
    expect(callsOf(calls, 'site.controls.set_switches').map((c) => c.params)).toEqual([{ delivery: false }, { inbox: true }]);
    expect(byLabel(root, 'Inbox').checked).toBe(true);
    expect(said(root, 'inbox')).toBe('Saved: Inbox is on.');
  });

  it('never takes the click for the answer', async () => {
    let answer: unknown = state(); // the server kept inbox off
    stubRPC({ 'site.controls.get': () => state(), 'site.controls.set_switches': () => answer });
    const root = await render();
    await click(byLabel(root, 'Inbox'));
    expect(byLabel(root, 'Inbox').checked).toBe(false);
    expect(said(root, 'inbox')).toBe('Saved: Inbox is off.');

    answer = failure('unavailable', 'the site\'s controls cannot be read', -32004);
    await click(byLabel(root, 'Comments'));
    expect(byLabel(root, 'Comments').checked).toBe(true);
    expect(said(root, 'comments')).toBe('');
    const box = root.querySelector('.switch-comments [role=alert]')!;
    expect(box.textContent).toContain('The server is busy or not ready.');
    expect(box.textContent).toContain("the site's controls cannot be read");
  });

  it('saves lockdown with RFC 3339 times in the browser\'s zone and shows the answer', async () => {
    const calls = stubRPC({
      'site.controls.get': () => state(),
      'site.controls.set_lockdown': (p) => ({ ...state(), lockdown: p, lockdown_active: true }),
    });
    const root = await render();
    await click(byLabel(root, 'Lockdown on'));
    await type(byLabel(root, 'From (optional)'), '2030-01-02T09:30');
    await type(byLabel(root, 'Until (optional)'), '2030-01-02T18:00');
    await type(byLabel(root, 'Reason (optional)'), '  incident  ');
    await click(button(root, 'Save lockdown'));

    const [sent] = callsOf(calls, 'site.controls.set_lockdown');
    const p = sent!.params;
    expect(Object.keys(p).sort()).toEqual(['from', 'on', 'reason', 'until']);
    expect(p.on).toBe(true);
    expect(p.reason).toBe('incident');
    const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;
    expect(p.from).toMatch(rfc3339);
    expect(p.until).toMatch(rfc3339);
    expect(p.from.slice(0, 19)).toBe('2030-01-02T09:30:00');
    expect(Date.parse(p.from)).toBe(new Date(2030, 0, 2, 9, 30).getTime());
    expect(Date.parse(p.until)).toBe(new Date(2030, 0, 2, 18, 0).getTime());

    expect(root.textContent).toContain('Saved.');
    expect(status(root)).toBe(`Lockdown is active now: changes are refused until ${fullTime(p.until)}.`);
    expect(controlsStore.get()?.lockdown_active).toBe(true);
  });

  it('leaves out empty times and shows a refused one next to its field', async () => {
    let answer: unknown = refusal('until', 'must be after from');
    const calls = stubRPC({ 'site.controls.get': () => state(), 'site.controls.set_lockdown': () => answer });
    const root = await render();
    await click(byLabel(root, 'Lockdown on'));
    await type(byLabel(root, 'From (optional)'), '2030-01-02T18:00');
    await type(byLabel(root, 'Until (optional)'), '2030-01-02T09:00');
    await click(button(root, 'Save lockdown'));

    const until = byLabel(root, 'Until (optional)');
    expect(until.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(until)).toBe('Error: must be after from');
    expect(errorOf(byLabel(root, 'From (optional)'))).toBeNull();
    expect(root.textContent).toContain('Not saved: see the marked field.');
    expect(document.activeElement).toBe(until);
    expect(controlsStore.get()?.lockdown.on).toBe(false);

    answer = state();
    await type(byLabel(root, 'From (optional)'), '');
    await type(byLabel(root, 'Until (optional)'), '');
    await click(byLabel(root, 'Lockdown on'));
    await click(button(root, 'Save lockdown'));
    expect(callsOf(calls, 'site.controls.set_lockdown')[1]!.params).toEqual({ on: false });
    expect(errorOf(byLabel(root, 'Until (optional)'))).toBeNull();
    expect(status(root)).toBe('Lockdown is off: changes are accepted.');
  });

  it('counts the reason live and does not send one over 200 characters', async () => {
    const calls = stubRPC({ 'site.controls.get': () => state(), 'site.controls.set_lockdown': () => state() });
    const root = await render();
    const reason = byLabel(root, 'Reason (optional)');
    await type(reason, 'あ'.repeat(200));
    expect(root.querySelector('.counter')!.textContent).toBe('200 / 200');
    expect(button(root, 'Save lockdown').disabled).toBe(false);
    await type(reason, 'あ'.repeat(201));
    expect(root.querySelector('.counter.over')!.textContent).toBe('201 / 200');
    expect(errorOf(reason)).toBe('Error: At most 200 characters.');
    expect(button(root, 'Save lockdown').disabled).toBe(true);
    expect(callsOf(calls, 'site.controls.set_lockdown')).toHaveLength(0);
  });

  it('shows why the controls could not be read, with a retry', async () => {
    let answer: unknown = failure('unavailable');
    stubRPC({ 'site.controls.get': () => answer });
    const root = await render();
    expect(root.querySelector('[role=alert]')!.textContent).toContain('The server is busy or not ready.');
    answer = state();
    await click(button(root, 'Retry'));
    expect(byLabel(root, 'Inbox').checked).toBe(false);
  });
});

/** The public site's status line. */
const siteStatus = (root: HTMLElement) => root.querySelector('.site-status')!.textContent;
const upToDate = { pending: 0, rebuilding: false };
const left = (n: number) => ({ pending: n, rebuilding: n > 0 });
/** Moves the polling's interval on by `ms` and lets the calls it made answer. */
const wait = async (ms: number) => {
  await act(() => {
    vi.advanceTimersByTime(ms);
  });
  await settle();
};

describe('Controls: the public site', () => {
  it('says whether the public site is up to date or how many pages are left', async () => {
    let answer = upToDate;
    stubRPC({ 'site.controls.get': () => state(), 'site.artifacts.status': () => answer });
    let root = await render();
    expect(root.querySelector('#controls-site-heading')!.textContent).toBe('Public site');
    expect(siteStatus(root)).toBe('The public site is up to date.');
    unmount();

    answer = left(1);
    stubRPC({ 'site.controls.get': () => state(), 'site.artifacts.status': () => answer });
    root = await render();
    expect(siteStatus(root)).toBe('Rendering the public site: 1 page left…');
    unmount();

    setLang('ja');
    answer = left(3);
    stubRPC({ 'site.controls.get': () => state(), 'site.artifacts.status': () => answer });
    root = await render();
    expect(siteStatus(root)).toBe('公開サイトを生成しています。残り 3 ページ…');
  });

  it('asks every 2 s while pages are left, and stops at 0 and when the screen goes away', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const answers = [left(40), left(12), upToDate];
    const calls = stubRPC({ 'site.controls.get': () => state(), 'site.artifacts.status': () => answers.shift() ?? upToDate });
    const asked = () => callsOf(calls, 'site.artifacts.status').length;
    let root = await render();
    expect(asked()).toBe(1);
    expect(siteStatus(root)).toBe('Rendering the public site: 40 pages left…');
    await wait(ARTIFACTS_POLL_MS - 1);
    expect(asked()).toBe(1);
    await wait(1);
    expect(asked()).toBe(2);
    expect(siteStatus(root)).toBe('Rendering the public site: 12 pages left…');
    await wait(ARTIFACTS_POLL_MS);
    expect(asked()).toBe(3);
    expect(siteStatus(root)).toBe('The public site is up to date.');
    await wait(10 * ARTIFACTS_POLL_MS);
    expect(asked(), 'calls after the count reached 0').toBe(3);
    unmount();

    // A rebuild still running when the screen goes away is not asked about again.
    const calls2 = stubRPC({ 'site.controls.get': () => state(), 'site.artifacts.status': () => left(5) });
    root = await render();
    await wait(ARTIFACTS_POLL_MS);
    expect(callsOf(calls2, 'site.artifacts.status')).toHaveLength(2);
    unmount();
    await wait(10 * ARTIFACTS_POLL_MS);
    expect(callsOf(calls2, 'site.artifacts.status'), 'calls after unmount').toHaveLength(2);
    expect(vi.getTimerCount(), 'timers left after unmount').toBe(0);
  });

  it('renders every page again on the button, disabled while the call runs, and follows the rebuild', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let pending = 0;
    let answer!: () => void;
    const server = fakeServer({
      'site.controls.get': () => state(),
      'site.artifacts.status': () => left(pending),
      'site.artifacts.rebuild': () =>
        new Promise((resolve) => {
          answer = () => {
            pending = 120;
            resolve(left(1));
          };
        }),
    });
    const root = await render();
    expect(siteStatus(root)).toBe('The public site is up to date.');
    const rebuild = button(root, 'Render every page again');
    await click(rebuild);
    expect(server.paramsOf('site.artifacts.rebuild')).toEqual([{}]);
    expect(rebuild.disabled, 'disabled while the call runs').toBe(true);
    expect(rebuild.getAttribute('aria-busy')).toBe('true');
    await act(() => answer());
    await settle();
    expect(rebuild.disabled).toBe(false);
    expect(root.querySelector('.site-artifacts .actions [role=status]')!.textContent).toBe(
      'Started: every page is being rendered again in the background.',
    );
    // The answer starts the polling, which asks at once and then every 2 s.
    expect(siteStatus(root)).toBe('Rendering the public site: 120 pages left…');
    const asked = server.paramsOf('site.artifacts.status').length;
    pending = 0;
    await wait(ARTIFACTS_POLL_MS);
    expect(server.paramsOf('site.artifacts.status')).toHaveLength(asked + 1);
    expect(siteStatus(root)).toBe('The public site is up to date.');
  });

  it('never lets an answer sent before the rebuild replace the rebuild\'s', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let late: ((r: unknown) => void) | null = null;
    const server = fakeServer({
      'site.controls.get': () => state(),
      // The first answer comes at once; the poll after it hangs until the test answers it.
      'site.artifacts.status': () => (server.paramsOf('site.artifacts.status').length === 1 ? left(1) : new Promise((r) => (late = r))),
      'site.artifacts.rebuild': () => left(50),
    });
    const root = await render();
    await wait(ARTIFACTS_POLL_MS);
    expect(late, 'the poll is waiting').not.toBeNull();
    await click(button(root, 'Render every page again'));
    expect(siteStatus(root)).toBe('Rendering the public site: 50 pages left…');
    // The count from before the rebuild arrives last: it is dropped, and the polling goes on.
    await act(() => late!(upToDate));
    await settle();
    expect(siteStatus(root)).toBe('Rendering the public site: 50 pages left…');
    const asked = server.paramsOf('site.artifacts.status').length;
    await wait(ARTIFACTS_POLL_MS);
    expect(server.paramsOf('site.artifacts.status')).toHaveLength(asked + 1);
  });

  it('shows why rendering again failed, and keeps the status it had', async () => {
    stubRPC({
      'site.controls.get': () => state(),
      'site.artifacts.status': () => upToDate,
      'site.artifacts.rebuild': () => failure('unavailable', 'the site keeps no artifacts', -32004),
    });
    const root = await render();
    await click(button(root, 'Render every page again'));
    const box = root.querySelector('.site-artifacts [role=alert]')!;
    expect(box.textContent).toContain('The server is busy or not ready.');
    expect(box.textContent).toContain('the site keeps no artifacts');
    expect(root.querySelector('.site-artifacts .actions [role=status]')!.textContent).toBe('');
    expect(siteStatus(root)).toBe('The public site is up to date.');
    expect(button(root, 'Render every page again').disabled).toBe(false);
  });

  it('shows a status that could not be read, with a retry that asks again', async () => {
    let answer: unknown = failure('unavailable', 'database busy');
    const calls = stubRPC({ 'site.controls.get': () => state(), 'site.artifacts.status': () => answer });
    const root = await render();
    expect(siteStatus(root)).toBe('Checking the public site…');
    expect(root.querySelector('.site-artifacts [role=alert]')!.textContent).toContain('database busy');
    answer = left(2);
    await click(button(root.querySelector('.site-artifacts') as HTMLElement, 'Retry'));
    expect(callsOf(calls, 'site.artifacts.status')).toHaveLength(2);
    expect(siteStatus(root)).toBe('Rendering the public site: 2 pages left…');
    expect(root.querySelector('.site-artifacts [role=alert]')).toBeNull();
  });
});
