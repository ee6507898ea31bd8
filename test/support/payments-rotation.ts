// The people directory the on-call tests share (API.md §22): group `payments`, alice and erin,
// on duty a week each from Monday 4 Jan 2027 09:00 UTC (alice first). Tests pick instants by it.
import { parseGroups } from '../../src/domain/groups.ts';
import { createDirectory, type Directory } from '../../src/engine/people/directory.ts';

export const ROTATION_STARTS = '2027-01-04T09:00:00Z';

export function paymentsDirectory(): Directory {
  return createDirectory(
    parseGroups([
      {
        id: 'payments',
        members: ['alice', 'erin'],
        rotation: {
          every: '1w',
          startsAt: ROTATION_STARTS,
          order: ['alice', 'erin'],
          handoverAt: '09:00',
          timeZone: 'UTC',
        },
      },
    ]),
  );
}
