// The job queue (docs/api.md "queue", "domains"): counts by state and
// topic, the jobs of one state a page at a time with their last error,
// retry / dismiss of dead letters, vacuum, and the failing domains of the
// delivery circuit breaker with reset. While open it calls queue.tick
// every 5 s (under CGI that is what runs the worker) and refreshes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { TICK_MS, usePoll, useTick } from '../hooks';
import { t } from '../i18n';
import type { ScreenProps } from '../router';
import { call, type Page as RPCPage } from '../rpc';
import {
  countFor,
  firstPage,
  listParams,
  nextCursors,
  prevCursors,
  showPage,
  STATES,
  statsAfter,
  topicRows,
  withoutDomain,
  withoutJob,
  type DomainFailure,
  type Job,
  type JobPager,
  type JobState,
  type Stats,
} from '../settings/queue';
import '../settings/queue.css';
import { Button, Confirm, Empty, ErrorBox, Field, Loading, Page, Time } from '../ui/basic';

const STATE_LABELS = {
  pending: 'queue.state_pending',
  scheduled: 'queue.state_scheduled',
  running: 'queue.state_running',
  done: 'queue.state_done',
  dead: 'queue.state_dead',
} as const;

type Pending = { job: Job; action: 'retry' | 'dismiss' } | { action: 'vacuum' };

export default function Queue(_props: ScreenProps) {
  useTick();
  const [stats, setStats] = useState<Stats | null>(null);
  const [statsError, setStatsError] = useState<unknown>(null);
  const [domains, setDomains] = useState<DomainFailure[] | null>(null);
  const [domainsError, setDomainsError] = useState<unknown>(null);
  const [state, setState] = useState<JobState>('dead');
  const [topic, setTopic] = useState('');
  const [pager, setPager] = useState<JobPager | null>(null);
  const [jobsError, setJobsError] = useState<unknown>(null);
  const [jobsBusy, setJobsBusy] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<{ key: string; error: unknown } | null>(null);
  const [notice, setNotice] = useState('');
  const jobsReq = useRef<AbortController | null>(null);
  const seenCount = useRef<number | null>(null);
  const jobsHeading = useRef<HTMLHeadingElement>(null);

  const loadJobs = async (cursors: (string | null)[], s: JobState = state, tp: string = topic) => {
    jobsReq.current?.abort();
    const ctrl = new AbortController();
    jobsReq.current = ctrl;
    setJobsBusy(true);
    setJobsError(null);
    try {
      const page = await call<RPCPage<Job>>('queue.list', listParams(s, tp, cursors[cursors.length - 1] ?? null), { signal: ctrl.signal });
      if (!ctrl.signal.aborted) setPager(showPage(cursors, page));
    } catch (err) {
      if (!ctrl.signal.aborted) setJobsError(err);
    } finally {
      if (jobsReq.current === ctrl) {
        jobsReq.current = null;
        setJobsBusy(false);
      }
    }
  };

  useEffect(() => {
    setPager(null);
    seenCount.current = null;
    void loadJobs(firstPage.cursors, state, topic);
    return () => jobsReq.current?.abort();
  }, [state, topic]);

  const refresh = async () => {
    const [s, d] = await Promise.allSettled([
      call<Stats>('queue.stats', {}),
      call<RPCPage<DomainFailure>>('domains.list_failures', {}),
    ]);
    if (s.status === 'fulfilled') {
      setStats(s.value);
      setStatsError(null);
      // The listed page is out of date when its filter's count changed;
      // reload it by itself only on the first page and with no question open.
      const n = countFor(s.value, state, topic);
      const changed = seenCount.current !== null && seenCount.current !== n;
      seenCount.current = n;
      if (changed && pager && pager.cursors.length === 1 && !pending && !busy && !jobsReq.current) void loadJobs(firstPage.cursors);
    } else setStatsError(s.reason);
    if (d.status === 'fulfilled') {
      setDomains(d.value.items);
      setDomainsError(null);
    } else setDomainsError(d.reason);
  };
  usePoll(refresh, TICK_MS);

  const act = async (key: string, run: () => Promise<void>) => {
    setBusy(key);
    setActionError(null);
    setNotice('');
    try {
      await run();
      setPending(null);
    } catch (err) {
      setActionError({ key, error: err });
    } finally {
      setBusy(null);
    }
  };

  const jobAction = (job: Job, action: 'retry' | 'dismiss') =>
    act(action + ':' + job.id, async () => {
      await call(action === 'retry' ? 'queue.retry' : 'queue.dismiss', { id: job.id });
      setPager((p) => (p ? withoutJob(p, job.id) : p));
      setStats((s) => {
        if (!s) return s;
        const next = statsAfter(s, job, action === 'retry' ? 'pending' : null);
        seenCount.current = countFor(next, state, topic);
        return next;
      });
      setNotice(action === 'retry' ? t('queue.retried', { topic: job.topic }) : t('queue.dismissed', { topic: job.topic }));
      jobsHeading.current?.focus();
      void refresh();
    });

  const vacuum = () =>
    act('vacuum', async () => {
      const r = await call<{ deleted: number }>('queue.vacuum', {});
      setNotice(t('queue.vacuumed', { count: r.deleted }));
      void refresh();
    });

  const reset = (domain: string) =>
    act('reset:' + domain, async () => {
      await call('domains.reset_failure', { domain });
      setDomains((ds) => (ds ? withoutDomain(ds, domain) : ds));
      setNotice(t('queue.domain_reset', { domain }));
    });

  const errorAt = (key: string) => (actionError?.key === key ? <ErrorBox error={actionError.error} /> : null);
  const topics = stats ? Object.keys(stats.topics ?? {}).sort() : [];

  return (
    <Page
      title={t('queue.title')}
      actions={
        <>
          <Button onClick={() => void Promise.all([refresh(), loadJobs(pager?.cursors ?? firstPage.cursors)])}>{t('queue.refresh')}</Button>
          <Button onClick={() => setPending({ action: 'vacuum' })} busy={busy === 'vacuum'}>
            {t('queue.vacuum')}
          </Button>
        </>
      }
    >
      <p class="notice" role="status">
        {notice}
      </p>
      {pending?.action === 'vacuum' && (
        <Confirm message={t('queue.vacuum_confirm')} confirmLabel={t('queue.vacuum')} danger={false} busy={busy === 'vacuum'} onConfirm={vacuum} onCancel={() => setPending(null)} />
      )}
      {errorAt('vacuum')}

      <section aria-labelledby="queue-stats-heading">
        <h2 id="queue-stats-heading">{t('queue.stats')}</h2>
        {statsError !== null && <ErrorBox error={statsError} onRetry={() => void refresh()} />}
        {!stats ? (
          statsError === null && <Loading />
        ) : (
          <>
            <dl class="queue-counts">
              {STATES.map((s) => (
                <div key={s} class={s === 'dead' && stats.dead > 0 ? 'bad' : undefined}>
                  <dt>{t(STATE_LABELS[s])}</dt>
                  <dd>{stats[s]}</dd>
                </div>
              ))}
            </dl>
            {topicRows(stats).length === 0 ? (
              <Empty>{t('queue.no_topics')}</Empty>
            ) : (
              <div class="table-wrap">
                <table class="queue-topics">
                  <caption>{t('queue.by_topic')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('queue.topic')}</th>
                      {STATES.map((s) => (
                        <th scope="col" key={s}>
                          {t(STATE_LABELS[s])}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {topicRows(stats).map((r) => (
                      <tr key={r.topic}>
                        <th scope="row">
                          <code>{r.topic}</code>
                        </th>
                        {STATES.map((s) => (
                          <td key={s}>{r.counts[s]}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </section>

      <section aria-labelledby="queue-jobs-heading">
        <h2 id="queue-jobs-heading" tabIndex={-1} ref={jobsHeading}>
          {t('queue.jobs')}
        </h2>
        <div class="queue-filters">
          <Field label={t('queue.filter_state')}>
            <select value={state} onChange={(e) => setState(e.currentTarget.value as JobState)}>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {t(STATE_LABELS[s])}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t('queue.filter_topic')}>
            <select value={topic} onChange={(e) => setTopic(e.currentTarget.value)}>
              <option value="">{t('queue.all_topics')}</option>
              {topics.map((tp) => (
                <option key={tp} value={tp}>
                  {tp}
                </option>
              ))}
            </select>
          </Field>
        </div>
        {state === 'scheduled' && <p class="hint">{t('queue.scheduled_hint')}</p>}
        {jobsError !== null && <ErrorBox error={jobsError} onRetry={() => void loadJobs(pager?.cursors ?? firstPage.cursors)} />}
        {!pager ? (
          jobsError === null && <Loading />
        ) : pager.items.length === 0 ? (
          <Empty>{state === 'dead' ? t('queue.no_dead') : t('queue.no_jobs')}</Empty>
        ) : (
          <ul class="list" aria-label={t('queue.jobs')} aria-busy={jobsBusy ? 'true' : undefined}>
            {pager.items.map((job) => (
              <li key={job.id} class="job">
                <p class="job-head">
                  <code>{job.topic}</code> <span class="muted">{t(STATE_LABELS[job.state] ?? 'queue.state_pending')}</span>{' '}
                  <span>{t('queue.attempts', { attempt: job.attempt, max: job.max_attempts })}</span>
                </p>
                {job.last_error ? (
                  <p class="job-error">
                    <span class="sr-only">{t('queue.last_error')} </span>
                    {job.last_error}
                  </p>
                ) : (
                  <p class="muted">{t('queue.no_error')}</p>
                )}
                <p class="muted job-times">
                  {t('queue.enqueued')} <Time iso={job.enqueued_at} />
                  {job.state === 'scheduled' && (
                    <>
                      {' · '}
                      {t('queue.next_run')} <Time iso={job.run_at} />
                    </>
                  )}
                  {job.finished_at && (
                    <>
                      {' · '}
                      {t('queue.finished')} <Time iso={job.finished_at} />
                    </>
                  )}
                </p>
                {job.state === 'dead' && (
                  <div class="actions">
                    <Button busy={busy === 'retry:' + job.id} onClick={() => setPending({ job, action: 'retry' })} aria-label={t('queue.retry_job', { topic: job.topic })}>
                      {t('queue.retry')}
                    </Button>
                    <Button busy={busy === 'dismiss:' + job.id} onClick={() => setPending({ job, action: 'dismiss' })} aria-label={t('queue.dismiss_job', { topic: job.topic })}>
                      {t('queue.dismiss')}
                    </Button>
                  </div>
                )}
                {pending && 'job' in pending && pending.job.id === job.id && (
                  <Confirm
                    message={pending.action === 'retry' ? t('queue.retry_confirm', { topic: job.topic }) : t('queue.dismiss_confirm', { topic: job.topic })}
                    confirmLabel={pending.action === 'retry' ? t('queue.retry') : t('queue.dismiss')}
                    danger={pending.action === 'dismiss'}
                    busy={busy === pending.action + ':' + job.id}
                    onConfirm={() => void jobAction(job, pending.action)}
                    onCancel={() => setPending(null)}
                  />
                )}
                {errorAt('retry:' + job.id)}
                {errorAt('dismiss:' + job.id)}
              </li>
            ))}
          </ul>
        )}
        {pager && (prevCursors(pager) || nextCursors(pager)) && (
          <nav class="actions pager" aria-label={t('queue.pages')}>
            <Button disabled={!prevCursors(pager) || jobsBusy} onClick={() => void loadJobs(prevCursors(pager)!)}>
              {t('queue.prev')}
            </Button>
            <Button disabled={!nextCursors(pager) || jobsBusy} onClick={() => void loadJobs(nextCursors(pager)!)}>
              {t('queue.next')}
            </Button>
            <span class="muted">{t('queue.page_n', { n: pager.cursors.length })}</span>
          </nav>
        )}
      </section>

      <section aria-labelledby="queue-domains-heading">
        <h2 id="queue-domains-heading">{t('queue.domains')}</h2>
        <p class="hint">{t('queue.domains_hint')}</p>
        {domainsError !== null && <ErrorBox error={domainsError} onRetry={() => void refresh()} />}
        {!domains ? (
          domainsError === null && <Loading />
        ) : domains.length === 0 ? (
          <Empty>{t('queue.no_domains')}</Empty>
        ) : (
          <ul class="list" aria-label={t('queue.domains')}>
            {domains.map((d) => (
              <li key={d.domain} class="job">
                <p class="job-head">
                  <strong>{d.domain}</strong> <span>{t('queue.failures', { count: d.failure_count })}</span>{' '}
                  {d.dead && <span class="tag bad">{t('queue.domain_dead')}</span>}
                </p>
                {d.last_error && <p class="job-error">{d.last_error}</p>}
                <p class="muted job-times">
                  {t('queue.first_failure')} <Time iso={d.first_failure_at} />
                  {' · '}
                  {t('queue.last_failure')} <Time iso={d.last_failure_at} />
                </p>
                <div class="actions">
                  <Button busy={busy === 'reset:' + d.domain} onClick={() => void reset(d.domain)} aria-label={t('queue.reset_domain', { domain: d.domain })}>
                    {t('queue.reset')}
                  </Button>
                </div>
                {errorAt('reset:' + d.domain)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}
