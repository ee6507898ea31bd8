// The pending list's filters (text, format, group, channel, audience, asker) and its order. They
// live in the page, not in the feed's state, so a reconnect's SNAPSHOT keeps them.
import { memo, useId, useMemo, useRef, useState } from 'react';
import { type Facets, type Filter, isFiltering, NO_FILTER, type SortOrder } from '../lib/arrange.ts';
import { FORMAT_CHOICES } from '../lib/formats.ts';
import { plainId } from './hooks.ts';

/** The filters behind the phone's Filters button (the search stays in view). */
const FOLDED = [
  'format',
  'group',
  'channel',
  'audience',
  'asker',
] as const satisfies readonly (keyof Filter)[];

const ORDERS: Record<SortOrder, string> = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  timeout: 'Soonest timeout',
};

/** Memoized: a group filter may list hundreds of values, and most changes leave them as they are. */
const Choice = memo(function Choice({
  id,
  label,
  value,
  values,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  values: readonly string[];
  onChange(value: string): void;
}) {
  // A chosen value that left the list stays choosable, so the filter never changes by itself.
  const all = value && !values.includes(value) ? [value, ...values] : values;
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any</option>
        {all.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
});

export function FilterBar({
  filter,
  setFilter,
  order,
  setOrder,
  facets,
  shown,
  total,
}: {
  filter: Filter;
  setFilter(f: Filter): void;
  order: SortOrder;
  setOrder(o: SortOrder): void;
  facets: Facets;
  /** Pending questions that pass the filter, and all of them. */
  shown: number;
  total: number;
}) {
  const id = plainId(useId());
  const set = (field: keyof Filter) => (value: string) => setFilter({ ...filter, [field]: value });
  // The choices' handlers stay the same functions (reading the latest filter), so a memoized
  // Choice whose values did not change is not rendered again.
  const latest = useRef(filter);
  latest.current = filter;
  const choose = useMemo(() => {
    const on = (field: keyof Filter) => (value: string) => setFilter({ ...latest.current, [field]: value });
    return { group: on('group'), channel: on('channel'), audience: on('audience'), asker: on('asker') };
  }, [setFilter]);
  const filtering = isFiltering(filter);
  // On a phone the fields past the search fold behind one button that counts the active ones
  // (styles.css shows them all on a wider screen, where the button is hidden).
  const [open, setOpen] = useState(false);
  const folded = FOLDED.filter((f) => filter[f] !== '').length;
  return (
    <search className={open ? 'filters open' : 'filters'} aria-label="Find questions">
      <div className="filter-field filter-text">
        <label htmlFor={`${id}-text`}>Search</label>
        <input
          id={`${id}-text`}
          type="search"
          value={filter.text}
          autoComplete="off"
          placeholder="Words in the question"
          onChange={(e) => set('text')(e.target.value)}
        />
      </div>
      <button
        type="button"
        className="quiet filters-toggle"
        aria-expanded={open}
        aria-controls={`${id}-more`}
        onClick={() => setOpen(!open)}
      >
        {folded > 0 ? `Filters (${folded} active)` : 'Filters'}
      </button>
      <div id={`${id}-more`} className="filter-more">
        <div className="filter-field">
          <label htmlFor={`${id}-format`}>Format</label>
          <select id={`${id}-format`} value={filter.format} onChange={(e) => set('format')(e.target.value)}>
            <option value="">Any</option>
            {FORMAT_CHOICES.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
        <Choice
          id={`${id}-group`}
          label="Group"
          value={filter.group}
          values={facets.groups}
          onChange={choose.group}
        />
        <Choice
          id={`${id}-channel`}
          label="Channel"
          value={filter.channel}
          values={facets.channels}
          onChange={choose.channel}
        />
        <Choice
          id={`${id}-audience`}
          label="Audience"
          value={filter.audience}
          values={facets.audiences}
          onChange={choose.audience}
        />
        <Choice
          id={`${id}-asker`}
          label="Asker"
          value={filter.asker}
          values={facets.askers}
          onChange={choose.asker}
        />
        <div className="filter-field">
          <label htmlFor={`${id}-order`}>Sort</label>
          <select id={`${id}-order`} value={order} onChange={(e) => setOrder(e.target.value as SortOrder)}>
            {(Object.keys(ORDERS) as SortOrder[]).map((o) => (
              <option key={o} value={o}>
                {ORDERS[o]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="filter-count" role="status" data-testid="filter-count">
        {filtering ? `${shown} of ${total} pending match` : `${total} pending`}
      </p>
      {filtering && (
        <button type="button" className="quiet" onClick={() => setFilter(NO_FILTER)}>
          Clear filters
        </button>
      )}
    </search>
  );
}
