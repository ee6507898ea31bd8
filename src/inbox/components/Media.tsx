// A question's media: images inline (alt text from the caption, no referrer), links as labelled
// anchors that open in a new tab without opener or referrer. Anything the API contract would refuse
// is shown as blocked, with its reason, and never rendered or linked.
import { useMemo, useState } from 'react';
import { checkMedia, hostOf } from '../lib/media.ts';
import type { Question } from '../lib/model.ts';

type Item = NonNullable<Question['media']>[number];

const SHOWN_URL_MAX = 160;

function shortUrl(url: string): string {
  return url.length > SHOWN_URL_MAX ? `${url.slice(0, SHOWN_URL_MAX)}…` : url;
}

function MediaItemView({ item }: { item: Item }) {
  const view = useMemo(() => checkMedia(item), [item]);
  // Remembered per URL: a question re-delivered with another URL tries again.
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  if (!view.ok) {
    const what = item.kind === 'IMAGE' ? 'image' : item.kind === 'LINK' ? 'link' : 'item';
    return (
      <div className="media-blocked" data-testid="media-blocked">
        <span className="badge badge-danger">Blocked {what}</span>{' '}
        <span className="media-blocked-reason">{view.reason}.</span>
        <code className="media-blocked-url">{shortUrl(view.url)}</code>
      </div>
    );
  }
  if (view.kind === 'IMAGE') {
    if (failedUrl === view.url) {
      return (
        <div className="media-blocked" data-testid="media-failed">
          <span className="badge badge-warning">Image failed to load</span>{' '}
          {view.caption && <span>{view.caption}</span>}
        </div>
      );
    }
    return (
      <figure className="media-image">
        <img
          src={view.url}
          alt={view.caption ?? 'Attached image'}
          referrerPolicy="no-referrer"
          decoding="async"
          onError={() => setFailedUrl(view.url)}
        />
        {view.caption && <figcaption aria-hidden="true">{view.caption}</figcaption>}
      </figure>
    );
  }
  const host = hostOf(view.url);
  return (
    <a className="media-link" href={view.url} target="_blank" rel="noopener noreferrer">
      <span className="media-link-label">{view.caption ?? view.url}</span>
      {host && <span className="media-link-host">{host}</span>}
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

export function MediaList({ items }: { items: readonly Item[] }) {
  return (
    <ul className="media" aria-label="Attachments">
      {items.map((item, i) => (
        // Items have no id and never reorder within a question.
        // biome-ignore lint/suspicious/noArrayIndexKey: stable order, no id
        <li key={i}>
          <MediaItemView item={item} />
        </li>
      ))}
    </ul>
  );
}
