// Policy rules in the domain (API.md §20): every limit of a rule at and one past it, the glob,
// the precedence of overlapping rules, and a rule's argument schema deciding 50 against 150.
import { describe, expect, it } from 'vitest';
import { jcsDigest } from '../../src/domain/digest.ts';
import { SCHEMA_MAX_BYTES } from '../../src/domain/limits.ts';
import { decide, globMatches, indexPolicies, type PolicyQuestion } from '../../src/domain/policy/decide.ts';
import {
  manifestPolicyRule,
  POLICY_ASKERS_MAX,
  POLICY_DESCRIPTION_MAX_CHARS,
  POLICY_ID_MAX_CHARS,
  type PolicyRule,
  parsePolicyRule,
  policyRuleJson,
} from '../../src/domain/policy/rule.ts';
import { expectBad } from '../support/domain-errors.ts';

const base = { id: 'r', effect: 'ALLOW', match: { action: 'payments.refund' } };
const parse = (extra: Record<string, unknown>) => parsePolicyRule({ ...base, ...extra }, 'input');
const rule = (r: Record<string, unknown>): PolicyRule => manifestPolicyRule(r, 'policies[0]');
const question = (name: string, args: Record<string, unknown> = {}, askedBy = 'agent'): PolicyQuestion => ({
  askedBy,
  action: { name, arguments: args },
});
const NOW = Date.parse('2026-12-06T12:00:00Z');

describe('a policy rule as written', () => {
  it('takes an id of 1 to 64 of a-z 0-9 -', () => {
    expect(parse({ id: 'a' }).spec.id).toBe('a');
    expect(parse({ id: 'a'.repeat(POLICY_ID_MAX_CHARS) }).spec.id).toHaveLength(POLICY_ID_MAX_CHARS);
    expectBad(() => parse({ id: 'a'.repeat(POLICY_ID_MAX_CHARS + 1) }), 'input.id');
    expectBad(() => parse({ id: '' }), 'input.id');
    expectBad(() => parse({ id: 'Refunds' }), 'input.id');
    expectBad(() => parse({ id: 'a_b' }), 'input.id');
    expectBad(() => parse({ id: 7 }), 'input.id');
  });

  it('takes a description of at most 500 characters', () => {
    const at = 'é'.repeat(POLICY_DESCRIPTION_MAX_CHARS);
    expect(parse({ description: at }).spec.description).toBe(at);
    expectBad(() => parse({ description: `${at}x` }), 'input.description');
  });

  it('takes ALLOW, DENY and ASK, ENFORCE (the default) and SHADOW, and nothing else', () => {
    expect(parse({}).spec.mode).toBe('ENFORCE');
    expect(parse({ effect: 'DENY', mode: 'SHADOW' }).spec).toMatchObject({ effect: 'DENY', mode: 'SHADOW' });
    expectBad(() => parse({ effect: 'MAYBE' }), 'input.effect');
    expectBad(() => parse({ mode: 'OFF' }), 'input.mode');
    expectBad(() => parse({ colour: 'red' }), 'input.colour');
  });

  it('takes an action name or a glob of at most 100 characters', () => {
    expect(parse({ match: { action: 'github.*' } }).spec.match.action).toBe('github.*');
    expect(parse({ match: { action: '*' } }).spec.match.action).toBe('*');
    expect(parse({ match: { action: 'a'.repeat(100) } }).spec.match.action).toHaveLength(100);
    expectBad(() => parse({ match: { action: 'a'.repeat(101) } }), 'input.match.action');
    expectBad(() => parse({ match: { action: 'github.[a-z]' } }), 'input.match.action');
    expectBad(() => parse({ match: { action: '' } }), 'input.match.action');
    expectBad(() => parse({ match: {} }), 'input.match.action');
    expectBad(() => parse({ match: { action: 'a', more: 1 } }), 'input.match.more');
  });

  it('takes at most 100 distinct askers', () => {
    const askers = Array.from({ length: POLICY_ASKERS_MAX }, (_, i) => `agent-${i}`);
    expect(parse({ match: { action: 'a', askers } }).spec.match.askers).toHaveLength(POLICY_ASKERS_MAX);
    expectBad(() => parse({ match: { action: 'a', askers: [...askers, 'one-more'] } }), 'input.match.askers');
    expectBad(() => parse({ match: { action: 'a', askers: [] } }), 'input.match.askers');
    expectBad(() => parse({ match: { action: 'a', askers: ['x', 'x'] } }), 'input.match.askers[1]');
    expectBad(() => parse({ match: { action: 'a', askers: [' '] } }), 'input.match.askers[0]');
  });

  it('compiles the argument schema once, with the limits of a question schema', () => {
    const parsed = parse({ match: { action: 'a', arguments: { type: 'object' } } });
    expect(parsed.compiled?.validate({})).toBe(true);
    expectBad(
      () => parse({ match: { action: 'a', arguments: { type: 'nonsense' } } }),
      'input.match.arguments',
    );
    expectBad(() => parse({ match: { action: 'a', arguments: [] } }), 'input.match.arguments');
    const filler = (n: number) => ({ description: 'x'.repeat(n) });
    const overhead = JSON.stringify(filler(0)).length;
    expect(
      parse({ match: { action: 'a', arguments: filler(SCHEMA_MAX_BYTES - overhead) } }).compiled,
    ).not.toBeNull();
    expectBad(
      () => parse({ match: { action: 'a', arguments: filler(SCHEMA_MAX_BYTES - overhead + 1) } }),
      'input.match.arguments',
    );
  });

  it('takes ask routing only on ASK rules, with a quorum of 1 to 20 and known channels', () => {
    const ask = (a: unknown) =>
      parsePolicyRule({ ...base, effect: 'ASK', ask: a }, 'input', {
        channels: new Set(['slack']),
        escalationPolicies: new Set(['pager']),
      });
    expect(
      ask({ quorum: { approvals: 20 }, channel: 'slack', escalationPolicy: 'pager' }).spec.ask,
    ).toMatchObject({
      quorum: { approvals: 20, rejections: 1, voters: null },
      channel: 'slack',
    });
    expectBad(() => ask({ quorum: { approvals: 21 } }), 'input.ask.quorum.approvals');
    expectBad(() => ask({ quorum: { approvals: 0 } }), 'input.ask.quorum.approvals');
    expectBad(() => ask({ channel: 'fax' }), 'input.ask.channel');
    expectBad(() => ask({ escalationPolicy: 'nope' }), 'input.ask.escalationPolicy');
    expectBad(() => ask({ audience: '' }), 'input.ask.audience');
    expectBad(() => parse({ ask: { audience: 'ops' } }), 'input.ask');
  });

  it('takes expiresAt as a date-time', () => {
    expect(parse({ expiresAt: '2027-01-01T00:00:00Z' }).spec.expiresAt).toBe(
      Date.parse('2027-01-01T00:00:00Z'),
    );
    expectBad(() => parse({ expiresAt: 'tomorrow' }), 'input.expiresAt');
  });

  it('versions a manifest rule as the sha256 of its JCS', () => {
    const r = rule(base);
    expect(r.version).toBe(jcsDigest(policyRuleJson(r)));
    expect(r.version).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rule({ ...base, description: 'changed' }).version).not.toBe(r.version);
  });
});

describe('matching actions', () => {
  it('treats * as any run of characters, dots included, and nothing else as special', () => {
    expect(globMatches('github.*', 'github.repos.delete')).toBe(true);
    expect(globMatches('github.*', 'github.')).toBe(true);
    expect(globMatches('github.*', 'githubx')).toBe(false);
    expect(globMatches('*.delete', 'github.repos.delete')).toBe(true);
    expect(globMatches('*', 'anything:at_all')).toBe(true);
    expect(globMatches('a*b*c', 'aXbYc')).toBe(true);
    expect(globMatches('a*b*c', 'aXbY')).toBe(false);
    expect(globMatches('a.b', 'aXb')).toBe(false);
    // Backtracking stays linear-ish: a long name against many stars answers at once.
    expect(globMatches('a*a*a*a*a*a*a*a*b', 'a'.repeat(100))).toBe(false);
  });
});

describe('deciding', () => {
  it('lets a rule’s argument schema decide 50 against 150', () => {
    const index = indexPolicies([
      rule({
        id: 'small-refunds',
        effect: 'ALLOW',
        match: {
          action: 'payments.refund',
          askers: ['support-agent'],
          arguments: {
            type: 'object',
            properties: { amount: { type: 'number', maximum: 50 } },
            required: ['amount'],
          },
        },
      }),
    ]);
    const at = (amount: number, asker = 'support-agent') =>
      decide(index, question('payments.refund', { amount }, asker), NOW).recorded?.id ?? null;
    expect(at(50)).toBe('small-refunds');
    expect(at(150)).toBeNull();
    expect(at(50, 'other-agent')).toBeNull();
  });

  it('puts DENY over ASK over ALLOW, whatever the specificity', () => {
    const rules = [
      rule({ id: 'allow-exact', effect: 'ALLOW', match: { action: 'github.repos.delete' } }),
      rule({ id: 'ask-glob', effect: 'ASK', match: { action: 'github.repos.*' } }),
      rule({ id: 'deny-all', effect: 'DENY', match: { action: '*' } }),
    ];
    const q = question('github.repos.delete');
    expect(decide(indexPolicies(rules), q, NOW).recorded?.id).toBe('deny-all');
    expect(decide(indexPolicies(rules.slice(0, 2)), q, NOW).recorded?.id).toBe('ask-glob');
    expect(decide(indexPolicies(rules.slice(0, 1)), q, NOW).recorded?.id).toBe('allow-exact');
    expect(decide(indexPolicies(rules), question('other'), NOW).recorded?.id).toBe('deny-all');
  });

  it('records the most specific rule of one effect: exact, then the longer glob, then the lowest id', () => {
    const rules = [
      rule({ id: 'z-all', effect: 'ASK', match: { action: '*' } }),
      rule({ id: 'y-github', effect: 'ASK', match: { action: 'github.*' } }),
      rule({ id: 'x-repos', effect: 'ASK', match: { action: 'github.repos.*' } }),
      rule({ id: 'b-exact', effect: 'ASK', match: { action: 'github.repos.delete' } }),
      rule({ id: 'a-exact', effect: 'ASK', match: { action: 'github.repos.delete' } }),
    ];
    const d = decide(indexPolicies(rules), question('github.repos.delete'), NOW);
    expect(d.recorded?.id).toBe('a-exact');
    expect(d.asks.map((r) => r.id)).toEqual(['a-exact', 'b-exact', 'x-repos', 'y-github', 'z-all']);
    expect(decide(indexPolicies(rules), question('github.issues.close'), NOW).recorded?.id).toBe('y-github');
  });

  it('lists matching SHADOW rules apart; they never decide', () => {
    const rules = [
      rule({ id: 'try-allow', effect: 'ALLOW', mode: 'SHADOW', match: { action: 'deploy' } }),
      rule({ id: 'try-deny', effect: 'DENY', mode: 'SHADOW', match: { action: '*' } }),
    ];
    const d = decide(indexPolicies(rules), question('deploy'), NOW);
    expect(d.recorded).toBeNull();
    expect(d.shadow.map((r) => r.id)).toEqual(['try-deny', 'try-allow']);
  });

  it('ignores an expired rule', () => {
    const r = rule({ ...base, expiresAt: new Date(NOW).toISOString() });
    expect(decide(indexPolicies([r]), question('payments.refund'), NOW - 1).recorded?.id).toBe('r');
    expect(decide(indexPolicies([r]), question('payments.refund'), NOW).recorded).toBeNull();
  });

  it('counts a schema it cannot evaluate as a match for DENY and not for ALLOW', () => {
    const pattern = { type: 'object', properties: { s: { type: 'string', pattern: '^(a|b)*c$' } } };
    const long = { s: 'ab'.repeat(400_000) };
    const allow = rule({ id: 'allow', effect: 'ALLOW', match: { action: 'x', arguments: pattern } });
    const deny = rule({ id: 'deny', effect: 'DENY', match: { action: 'x', arguments: pattern } });
    expect(decide(indexPolicies([allow]), question('x', long), NOW).recorded).toBeNull();
    expect(decide(indexPolicies([deny]), question('x', long), NOW).recorded?.id).toBe('deny');
  });

  it('looks exact rules up by name: 1,000 of them leave another action undecided', () => {
    const rules = Array.from({ length: 1000 }, (_, i) =>
      rule({ id: `r-${i}`, effect: 'ALLOW', match: { action: `tool.${i}` } }),
    );
    const index = indexPolicies(rules);
    expect(index.exact.size).toBe(1000);
    expect(index.globs).toHaveLength(0);
    expect(decide(index, question('tool.999'), NOW).recorded?.id).toBe('r-999');
    expect(decide(index, question('tool.1000'), NOW).recorded).toBeNull();
  });
});
