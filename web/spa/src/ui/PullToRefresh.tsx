// Pull-to-refresh for touch screens: pulling down from the top of the page by
// more than THRESHOLD px and letting go calls onRefresh. Mouse and keyboard
// users get nothing here (screens keep a normal refresh button).
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { t } from '../i18n';

export const THRESHOLD = 70;

export function PullToRefresh({ onRefresh, children }: { onRefresh: () => Promise<unknown> | void; children: ComponentChildren }) {
  const start = useRef<number | null>(null);
  const [state, setState] = useState<'idle' | 'pulling' | 'ready' | 'refreshing'>('idle');

  const onTouchStart = (e: TouchEvent) => {
    start.current = window.scrollY <= 0 && e.touches.length === 1 ? e.touches[0]!.clientY : null;
  };
  const onTouchMove = (e: TouchEvent) => {
    if (start.current === null || state === 'refreshing') return;
    const dy = e.touches[0]!.clientY - start.current;
    setState(dy > THRESHOLD ? 'ready' : dy > 10 ? 'pulling' : 'idle');
  };
  const onTouchEnd = async () => {
    const ready = state === 'ready';
    start.current = null;
    if (!ready) {
      setState('idle');
      return;
    }
    setState('refreshing');
    try {
      await onRefresh();
    } finally {
      setState('idle');
    }
  };

  return (
    <div class="ptr" onTouchStart={onTouchStart} onTouchMove={onTouchMove} onTouchEnd={onTouchEnd} onTouchCancel={() => setState('idle')}>
      <p class={'ptr-indicator ptr-' + state} role="status" aria-live="polite">
        {state === 'pulling' ? t('ui.pull') : state === 'ready' ? t('ui.release') : state === 'refreshing' ? t('ui.refreshing') : ''}
      </p>
      {children}
    </div>
  );
}
