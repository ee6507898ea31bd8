// The answer control of each in-client format, and the EXTERNAL card's link.
import { type KeyboardEvent, useId, useState } from 'react';
import { isBlank } from '../../domain/limits.ts';
import { hostOf, safeLink } from '../lib/media.ts';
import { plainId } from './hooks.ts';

export interface ControlProps {
  busy: boolean;
  send(answer: unknown): void;
}

export function TextAnswer({ busy, send, sensitive }: ControlProps & { sensitive: boolean }) {
  const id = plainId(useId());
  const [value, setValue] = useState('');
  const blank = isBlank(value);
  const submit = (): void => {
    if (!blank && !busy) send(value);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <form
      className="answer answer-text"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor={`${id}-text`}>Your answer</label>
      <textarea
        id={`${id}-text`}
        rows={3}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
        readOnly={busy}
        aria-describedby={`${id}-hint`}
        autoComplete="off"
        spellCheck={!sensitive}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={blank || busy}>
          Submit
        </button>
        <span id={`${id}-hint`} className="hint">
          Ctrl+Enter (⌘+Enter on a Mac) submits
        </span>
      </div>
    </form>
  );
}

export function ConfirmAnswer({ busy, send }: ControlProps) {
  return (
    <fieldset className="answer answer-confirm">
      <legend className="visually-hidden">Your answer</legend>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={busy}
          data-shortcut="approve"
          onClick={() => send(true)}
        >
          Yes
        </button>
        <button type="button" disabled={busy} data-shortcut="reject" onClick={() => send(false)}>
          No
        </button>
      </div>
    </fieldset>
  );
}

/** Up to this many options show as radio buttons; more get a search box above a scrolling list. */
export const SELECT_RADIO_MAX = 5;

export function SelectAnswer({ busy, send, options }: ControlProps & { options: readonly string[] }) {
  const id = plainId(useId());
  const [choice, setChoice] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const searchable = options.length > SELECT_RADIO_MAX;
  const needle = filter.trim().toLocaleLowerCase();
  const shown =
    searchable && needle ? options.filter((o) => o.toLocaleLowerCase().includes(needle)) : options;
  const hiddenChoice = choice !== null && !shown.includes(choice);
  return (
    <form
      className="answer answer-select"
      onSubmit={(e) => {
        e.preventDefault();
        if (choice !== null && !busy) send(choice);
      }}
    >
      <fieldset>
        <legend>Choose an option</legend>
        {searchable && (
          <div className="option-search">
            <label htmlFor={`${id}-search`}>Search the {options.length} options</label>
            <input
              id={`${id}-search`}
              type="search"
              value={filter}
              autoComplete="off"
              onChange={(e) => setFilter(e.target.value)}
              onKeyDown={(e) => {
                // Enter in the search box must not submit a choice made earlier.
                if (e.key === 'Enter') e.preventDefault();
              }}
              aria-controls={`${id}-options`}
              aria-describedby={`${id}-count`}
            />
            <p id={`${id}-count`} className="hint" aria-live="polite">
              {shown.length === options.length
                ? `${options.length} options`
                : `${shown.length} of ${options.length} options match`}
            </p>
          </div>
        )}
        <div id={`${id}-options`} className={searchable ? 'options options-scroll' : 'options'}>
          {shown.map((option) => (
            <label key={option} className="option">
              <input
                type="radio"
                name={`${id}-choice`}
                value={option}
                checked={choice === option}
                disabled={busy}
                onChange={() => setChoice(option)}
              />
              <span>{option}</span>
            </label>
          ))}
          {shown.length === 0 && <p className="hint">No option matches “{filter}”.</p>}
        </div>
      </fieldset>
      {hiddenChoice && <p className="hint">Chosen: {choice}</p>}
      <div className="actions">
        <button type="submit" className="primary" disabled={choice === null || busy}>
          Submit
        </button>
      </div>
    </form>
  );
}

export function ExternalAnswer({ link, serverVerified }: { link: string | null; serverVerified: boolean }) {
  if (serverVerified) {
    return (
      <p className="answer answer-external external-wait">
        <span className="badge">Pending</span> Awaiting a verified server callback: the provider answers this
        question directly, and the card updates when it does.
      </p>
    );
  }
  const href = safeLink(link);
  if (href) {
    const host = hostOf(href);
    return (
      <div className="answer answer-external">
        <a className="button primary" href={href} target="_blank" rel="noopener noreferrer">
          Open the page to answer<span className="visually-hidden"> (opens in a new tab)</span>
        </a>
        {host && <span className="hint"> on {host}. The card updates when the answer arrives.</span>}
      </div>
    );
  }
  if (link) {
    return (
      <div className="answer answer-external media-blocked" data-testid="link-blocked">
        <span className="badge badge-danger">Blocked link</span> This link is not an http(s) URL and is not
        shown as one: <code className="media-blocked-url">{link.slice(0, 160)}</code>
      </div>
    );
  }
  return (
    <p className="answer answer-external hint">
      This question is answered outside the inbox, through its link.
    </p>
  );
}
