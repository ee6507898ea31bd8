// PolicyAsk's assurance and requireSeparateRequester (API.md §20): accepted and kept on ASK
// rules, checked (a choice list, a boolean), and left out of the JCS of rules that do not set
// them, so the versions of existing manifest rules do not change. Grant ids are reserved.
import { describe, expect, it } from 'vitest';
import { manifestPolicyRule, parsePolicyRule, policyRuleJson } from '../../src/domain/policy/rule.ts';

const rule = (ask: Record<string, unknown>) => ({
  id: 'prod',
  effect: 'ASK',
  match: { action: 'deploy.prod' },
  ask,
});

describe('PolicyAsk assurance and requireSeparateRequester', () => {
  it('keeps them', () => {
    const { spec } = parsePolicyRule(rule({ assurance: 'HIGH', requireSeparateRequester: true }), 'input');
    expect(spec.ask).toMatchObject({ assurance: 'HIGH', requireSeparateRequester: true });
    expect(policyRuleJson(spec).ask).toMatchObject({ assurance: 'HIGH', requireSeparateRequester: true });
    const plain = parsePolicyRule(rule({ assurance: 'STANDARD' }), 'input').spec;
    expect(plain.ask).toMatchObject({ assurance: 'STANDARD', requireSeparateRequester: false });
  });

  it('refuses other values, naming the field and the choices', () => {
    expect(() => parsePolicyRule(rule({ assurance: 'MAX' }), 'input')).toThrow(
      expect.objectContaining({ field: 'input.ask.assurance', message: 'must be one of: STANDARD, HIGH' }),
    );
    expect(() => parsePolicyRule(rule({ requireSeparateRequester: 'yes' }), 'input')).toThrow(
      expect.objectContaining({ field: 'input.ask.requireSeparateRequester' }),
    );
  });

  it('a rule without them keeps the version it had', () => {
    const r = manifestPolicyRule(rule({ audience: 'ops' }), 'policies[0]');
    expect(policyRuleJson(r).ask).toEqual({
      quorum: null,
      audience: 'ops',
      channel: null,
      escalationPolicy: null,
    });
  });

  it('ids starting with grant- are kept for grants', () => {
    expect(() => parsePolicyRule({ ...rule({}), id: 'grant-1' }, 'input')).toThrow(
      expect.objectContaining({ field: 'input.id' }),
    );
  });
});
