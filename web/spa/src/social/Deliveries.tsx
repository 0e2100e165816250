// The delivery list of one of the owner's posts, refreshed every 5 s while
// it is on screen (and the page is visible), alongside useTick's queue.tick
// that keeps the worker running under CGI.
import { useCallback, useRef, useState } from 'preact/hooks';
import { TICK_MS, usePoll } from '../hooks';
import { t } from '../i18n';
import { call } from '../rpc';
import { Button, Empty, ErrorBox, Loading, Time } from '../ui/basic';
import { counts, groupDeliveries, mergeInboxes, STATES } from './deliveries';
import type { Deliveries as DeliveriesData, Delivery } from './types';

const PAGE = 20;
const MAX_LIMIT = 100;

function Row({ d }: { d: Delivery }) {
  return (
    <li>
      <span class="inbox">{d.inbox}</span>
      <div class="muted">
        {d.attempts > 0 && <span>{t('postdetail.attempts', { count: d.attempts })} · </span>}
        <Time iso={d.updated_at} />
      </div>
      {d.last_error && (
        <p class="delivery-error">
          {d.state === 'pending' ? t('postdetail.retrying', { error: d.last_error }) : t('postdetail.reason', { error: d.last_error })}
        </p>
      )}
    </li>
  );
}

export function Deliveries({ id }: { id: string }) {
  const [data, setData] = useState<DeliveriesData | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [more, setMore] = useState(false);
  const shown = useRef(0);
  const inFlight = useRef(false);

  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    try {
      const limit = Math.min(MAX_LIMIT, Math.max(PAGE, shown.current));
      const fresh = await call<DeliveriesData>('posts.deliveries', { id, limit });
      setData((old) => {
        const keep = old && old.inboxes.length > fresh.inboxes.length;
        const inboxes = keep ? mergeInboxes(old.inboxes, fresh.inboxes) : fresh.inboxes;
        shown.current = inboxes.length;
        return { ...fresh, inboxes, next_cursor: keep ? old.next_cursor : fresh.next_cursor };
      });
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      inFlight.current = false;
    }
  }, [id]);
  usePoll(refresh, TICK_MS);

  const loadMore = async () => {
    if (!data?.next_cursor) return;
    setMore(true);
    try {
      const next = await call<DeliveriesData>('posts.deliveries', { id, cursor: data.next_cursor, limit: PAGE });
      setData((old) => {
        const inboxes = mergeInboxes(old?.inboxes ?? [], next.inboxes);
        shown.current = inboxes.length;
        return { ...next, inboxes };
      });
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setMore(false);
    }
  };

  let body;
  if (!data) body = error ? <ErrorBox error={error} onRetry={() => void refresh()} /> : <Loading />;
  else {
    const c = counts(data);
    const groups = groupDeliveries(data.inboxes);
    body = (
      <>
        <ul class="delivery-counts" aria-label={t('postdetail.counts')}>
          {STATES.map((s) => (
            <li key={s} class={'delivery-' + s}>
              <strong>{c[s]}</strong>
              {t(`postdetail.state_${s}`)}
            </li>
          ))}
        </ul>
        {error !== null && <ErrorBox error={error} onRetry={() => void refresh()} />}
        {c.total === 0 ? (
          <Empty>{t('postdetail.no_deliveries')}</Empty>
        ) : (
          STATES.filter((s) => groups[s].length > 0).map((s) => (
            <section key={s} aria-labelledby={'dl-' + s}>
              <h3 id={'dl-' + s}>
                {t(`postdetail.state_${s}`)} ({c[s]})
              </h3>
              <ul class="list">
                {groups[s].map((d) => (
                  <Row key={d.inbox} d={d} />
                ))}
              </ul>
            </section>
          ))
        )}
        {data.next_cursor && (
          <Button busy={more} onClick={() => void loadMore()}>
            {t('ui.more')}
          </Button>
        )}
      </>
    );
  }
  return (
    <section class="deliveries" aria-labelledby="deliveries-h" aria-live="off">
      <h2 id="deliveries-h">{t('postdetail.deliveries')}</h2>
      <p class="hint">{t('postdetail.deliveries_hint')}</p>
      {body}
    </section>
  );
}
