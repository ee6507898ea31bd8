// On-call rotations and the groups file's checks (API.md §22): who is on duty at fixed instants —
// daily, weekly and fortnightly, at and one minute before each handover, in a zone with daylight
// saving — and every refused shape with its field.
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/domain/errors.ts';
import { GROUP_MEMBERS_MAX, GROUPS_MAX, mergeGroups, parseGroups } from '../../src/domain/groups.ts';
import { checkRotation, onDuty } from '../../src/domain/rotation.ts';

const at = (iso: string) => Date.parse(iso);

describe('onDuty', () => {
  it('daily at 09:00 UTC: order[0] from startsAt, then each day at the handover', () => {
    const r = checkRotation(
      {
        every: '1d',
        startsAt: '2026-03-02T09:00:00Z',
        order: ['a', 'b', 'c'],
        handoverAt: '09:00',
        timeZone: 'UTC',
      },
      'r',
    );
    expect(onDuty(r, at('2026-03-02T08:59:59Z'))).toBeNull();
    expect(onDuty(r, at('2026-03-02T09:00:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-03-03T08:59:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-03-03T09:00:00Z'))).toBe('b');
    expect(onDuty(r, at('2026-03-04T23:59:00Z'))).toBe('c');
    expect(onDuty(r, at('2026-03-05T09:00:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-04-01T09:00:00Z'))).toBe(['a', 'b', 'c'][30 % 3]);
  });

  it('weekly in Europe/Paris, across the switch to summer time (handover at local 09:00)', () => {
    const r = checkRotation(
      {
        every: '1w',
        startsAt: '2026-03-16T08:00:00Z',
        order: ['a', 'b'],
        handoverAt: '09:00',
        timeZone: 'Europe/Paris',
      },
      'r',
    );
    // 2026-03-23 09:00 in Paris is 08:00Z (winter time, UTC+1).
    expect(onDuty(r, at('2026-03-23T07:59:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-03-23T08:00:00Z'))).toBe('b');
    // Summer time from 2026-03-29: 2026-03-30 09:00 in Paris is 07:00Z.
    expect(onDuty(r, at('2026-03-30T06:59:00Z'))).toBe('b');
    expect(onDuty(r, at('2026-03-30T07:00:00Z'))).toBe('a');
  });

  it('fortnightly: two weeks each', () => {
    const r = checkRotation(
      {
        every: '2w',
        startsAt: '2026-01-05T09:00:00Z',
        order: ['a', 'b'],
        handoverAt: '09:00',
        timeZone: 'UTC',
      },
      'r',
    );
    expect(onDuty(r, at('2026-01-18T12:00:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-01-19T08:59:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-01-19T09:00:00Z'))).toBe('b');
    expect(onDuty(r, at('2026-02-02T09:00:00Z'))).toBe('a');
  });

  it('defaults: handoverAt 09:00, timeZone UTC', () => {
    const r = checkRotation({ every: '1d', startsAt: '2026-03-02T00:00:00Z', order: ['a', 'b'] }, 'r');
    expect(r).toMatchObject({ handoverAt: '09:00', timeZone: 'UTC' });
    expect(onDuty(r, at('2026-03-03T08:00:00Z'))).toBe('a');
    expect(onDuty(r, at('2026-03-03T09:00:00Z'))).toBe('b');
  });
});

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (err) {
    if (isDomainError(err)) return `${err.field}: ${err.message}`;
    throw err;
  }
  return undefined;
};

describe('parseGroups', () => {
  const rotation = { every: '1d', startsAt: '2026-03-02T09:00:00Z', order: ['a'] };
  it('refuses each bad shape, naming the field', () => {
    expect(fieldOf(() => parseGroups({}))).toBe('groups: must be a list of groups');
    expect(fieldOf(() => parseGroups([{ id: 'bad id', members: ['a'] }]))).toMatch(/^groups\[0\]\.id:/);
    expect(fieldOf(() => parseGroups([{ id: 'g', members: [] }]))).toMatch(/^groups\[0\]\.members:/);
    expect(fieldOf(() => parseGroups([{ id: 'g', members: ['a', 'a'] }]))).toBe(
      'groups[0].members[1]: must not repeat',
    );
    expect(fieldOf(() => parseGroups([{ id: 'g', members: ['group:x'] }]))).toMatch(/groups do not nest/);
    expect(fieldOf(() => parseGroups([{ id: 'g', members: ['a'], extra: 1 }]))).toMatch(
      /^groups\[0\]\.extra: unknown field/,
    );
    expect(
      fieldOf(() => parseGroups([{ id: 'g', members: ['a'], rotation: { ...rotation, every: '3d' } }])),
    ).toBe('groups[0].rotation.every: every must be one of "1d", "1w", "2w"');
    expect(
      fieldOf(() => parseGroups([{ id: 'g', members: ['a'], rotation: { ...rotation, order: ['b'] } }])),
    ).toBe('groups[0].rotation.order[0]: must be one of the members');
    expect(
      fieldOf(() =>
        parseGroups([{ id: 'g', members: ['a'], rotation: { ...rotation, handoverAt: '24:00' } }]),
      ),
    ).toMatch(/^groups\[0\]\.rotation\.handoverAt:/);
    expect(
      fieldOf(() =>
        parseGroups([{ id: 'g', members: ['a'], rotation: { ...rotation, timeZone: 'Mars/Base' } }]),
      ),
    ).toMatch(/^groups\[0\]\.rotation\.timeZone:/);
    expect(
      fieldOf(() =>
        parseGroups([{ id: 'g', members: ['a'], rotation: { ...rotation, startsAt: 'monday' } }]),
      ),
    ).toMatch(/^groups\[0\]\.rotation\.startsAt:/);
    expect(
      fieldOf(() =>
        mergeGroups(
          parseGroups([{ id: 'g', members: ['a'] }]),
          parseGroups([{ id: 'g', members: ['b'] }]),
          'm',
        ),
      ),
    ).toBe('m[0].id: names group "g" twice');
  });

  it('limits at and one past: groups and members', () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
    expect(parseGroups([{ id: 'g', members: members(GROUP_MEMBERS_MAX) }])[0]!.members).toHaveLength(
      GROUP_MEMBERS_MAX,
    );
    expect(fieldOf(() => parseGroups([{ id: 'g', members: members(GROUP_MEMBERS_MAX + 1) }]))).toMatch(
      /^groups\[0\]\.members:/,
    );
    const groups = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `g${i}`, members: ['a'] }));
    expect(parseGroups(groups(GROUPS_MAX))).toHaveLength(GROUPS_MAX);
    expect(fieldOf(() => parseGroups(groups(GROUPS_MAX + 1)))).toBe(
      `groups: must list at most ${GROUPS_MAX} groups`,
    );
  });
});
