// A remote post's attachments. Sensitive media is not even requested until
// the owner asks to see it (the <img> is not in the DOM before the click).
// URLs come from another server: only http(s) ones become src or href.
import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { webURL } from './handle';
import type { Attachment } from './types';

function kindOf(a: Attachment): 'image' | 'video' | 'audio' | 'other' {
  const m = (a.media_type ?? '').toLowerCase();
  const ty = a.type.toLowerCase();
  if (m.startsWith('image/') || ty === 'image') return 'image';
  if (m.startsWith('video/') || ty === 'video') return 'video';
  if (m.startsWith('audio/') || ty === 'audio') return 'audio';
  return 'other';
}

function One({ a }: { a: Attachment }) {
  const url = webURL(a.url);
  if (!url) return null;
  const alt = a.name ?? '';
  switch (kindOf(a)) {
    case 'image':
      return (
        <a href={url} target="_blank" rel="noopener noreferrer nofollow" class="media-item">
          <img src={url} alt={alt} loading="lazy" referrerpolicy="no-referrer" />
        </a>
      );
    case 'video':
      return <video class="media-item" src={url} controls preload="none" aria-label={alt || t('timeline.media_video')} />;
    case 'audio':
      return <audio class="media-item" src={url} controls preload="none" aria-label={alt || t('timeline.media_audio')} />;
    default:
      return (
        <a href={url} target="_blank" rel="noopener noreferrer nofollow" class="media-item media-link">
          {alt || t('timeline.media_file')}
        </a>
      );
  }
}

export function Media({ attachments, sensitive }: { attachments: Attachment[]; sensitive: boolean }) {
  const [shown, setShown] = useState(!sensitive);
  const list = attachments.filter((a) => webURL(a.url));
  if (list.length === 0) return null;
  if (!shown) {
    return (
      <div class="media media-hidden">
        <button type="button" class="button" aria-expanded="false" onClick={() => setShown(true)}>
          {t('timeline.sensitive_show', { count: list.length })}
        </button>
      </div>
    );
  }
  return (
    <div class="media">
      <div class="media-grid">
        {list.map((a, i) => (
          <One key={i} a={a} />
        ))}
      </div>
      {sensitive && (
        <button type="button" class="button plain" aria-expanded="true" onClick={() => setShown(false)}>
          {t('timeline.sensitive_hide')}
        </button>
      )}
    </div>
  );
}
