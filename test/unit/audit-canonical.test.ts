// The audit chain's hand-written canonical form (domain/audit.ts) must be the RFC 8785 bytes the
// JCS library writes, for any entry: a verifier recomputes every hash with its own JCS.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ENTRY_TYPES,
  type AuditDraft,
  auditCanonicalJson,
  auditHashOf,
  chainAuditEntry,
  chainedAuditJson,
} from '../../src/domain/audit.ts';
import { canonicalJson } from '../../src/domain/digest.ts';

// Well-formed strings only: a lone surrogate has no canonical form (digest.ts refuses it).
const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const fact = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const draft: fc.Arbitrary<AuditDraft> = fc.record({
  seq: fc.integer({ min: 1, max: 2 ** 40 }),
  at: fc.integer({ min: 0, max: 4102444800000 }),
  type: fc.constantFrom(...AUDIT_ENTRY_TYPES),
  questionId: fc.option(text, { nil: null }),
  actor: fc.option(text, { nil: null }),
  via: fc.option(text, { nil: null }),
  detail: fc.option(fc.dictionary(text, fact, { maxKeys: 6 }), { nil: null }),
});
const prev = fc.option(
  fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`),
  { nil: null },
);

describe('the audit entry canonical form', () => {
  it('is the JCS library’s for any entry', () => {
    fc.assert(
      fc.property(draft, prev, (d, p) => {
        const e = chainAuditEntry(d, p);
        const { hash: _h, ...body } = e;
        expect(auditCanonicalJson(body)).toBe(canonicalJson(body));
        expect(e.hash).toBe(auditHashOf(e));
      }),
      { numRuns: 500 },
    );
  });

  it('the stored text parses to the entry, with the same hash', () => {
    fc.assert(
      fc.property(draft, prev, (d, p) => {
        const { hash, json } = chainedAuditJson(d, p);
        const e = chainAuditEntry(d, p);
        expect(hash).toBe(e.hash);
        expect(JSON.parse(json)).toEqual(e);
        expect(Object.keys(JSON.parse(json))).toEqual(Object.keys(e));
      }),
      { numRuns: 500 },
    );
  });

  it('hashes the worked example of API.md §17', () => {
    const e = chainAuditEntry(
      {
        seq: 1,
        at: Date.parse('2026-12-01T12:00:00.000Z'),
        type: 'ASKED',
        questionId: 'q_1',
        actor: 'deploy-agent',
        via: 'api',
        detail: {
          textDigest: 'sha256:4e39de9c1845fc9d712e0d441e7f6ab7c5a58c749cb537ea9a27d1f2f602a052',
          format: 'CONFIRM',
        },
      },
      null,
    );
    expect(e.hash).toBe('sha256:1be137d7e9b6846fd4254a17cd9ac40e11df744b5abee3754f077c21dbf065aa');
  });

  it('a verifier still sees a member added to an entry', () => {
    const e = chainAuditEntry(
      { seq: 2, at: 0, type: 'ANSWERED', questionId: 'q', actor: 'ops', via: 'api', detail: null },
      null,
    );
    expect(auditHashOf({ ...e, extra: 1 } as typeof e)).not.toBe(e.hash);
  });
});
