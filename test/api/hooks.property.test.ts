// Whatever a caller sends the permission-hook doors (API.md §21) — any JSON, a hook event with
// every field allowed to be wrong, any query — the answer is 200, 400 or 413 with the uniform
// error body, never a 500.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudePermissionRequest, codexPermissionRequest } from '../support/hook-payloads.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const DOORS = ['/api/interactions/hooks/claude-code', '/api/interactions/hooks/codex'];

const wrongish = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.object(),
);
// Hook events shaped like the clients', with any field replaced by something else.
const event = fc
  .tuple(
    fc.constantFrom(claudePermissionRequest('Bash', { command: 'ls' }), codexPermissionRequest('ls')),
    fc.dictionary(
      fc.constantFrom('tool_name', 'tool_input', 'session_id', 'hook_event_name', 'tool_use_id', 'cwd'),
      wrongish,
    ),
  )
  .map(([base, over]) => JSON.stringify({ ...base, ...over }));
const body = fc.oneof(event, fc.json(), fc.string({ maxLength: 200 }));
// A numeric wait above 0 would hold the request: waits are 0 or not a number (a 400).
const wait = fc.oneof(
  fc.constant('0'),
  fc.string({ maxLength: 6 }).filter((w) => !/\d/.test(w)),
);
const query = fc
  .record({ wait, channel: fc.string({ maxLength: 8 }) }, { requiredKeys: ['wait'] })
  .map((q) => `?${new URLSearchParams(q).toString()}`);

describe('the permission-hook doors never answer 500', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
  });
  afterAll(() => t.close());

  it('any body and query: 200, 400 or 413, an error with its code', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DOORS), body, query, async (door, payload, qs) => {
        const url = door + qs;
        const r = await t.server.inject({
          method: 'POST',
          url,
          headers: { ...auth('agent'), 'content-type': 'application/json' },
          payload,
        });
        expect([200, 400, 413]).toContain(r.statusCode);
        if (r.statusCode !== 200)
          expect(r.json()).toMatchObject({ code: expect.any(String), error: expect.any(String) });
      }),
      { numRuns: 150 },
    );
  });
});
