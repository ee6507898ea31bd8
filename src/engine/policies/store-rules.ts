// Store policy rules (API.md §20): admins put and delete them; every instance keeps its rule set
// in step by polling the store's generation (a change reaches the others within a second) and
// applies its own changes at once.
import { jcsDigest } from '../../domain/digest.ts';
import { badInput, DomainError } from '../../domain/errors.ts';
import { grantRule } from '../../domain/policy/grant.ts';
import {
  type PolicyContext,
  type PolicyRule,
  parsePolicyRule,
  policyRuleJson,
} from '../../domain/policy/rule.ts';
import { hasRole, type Principal } from '../../domain/principal.ts';
import type { StoredPolicy } from '../../store/policies.ts';
import type { EngineContext } from '../context.ts';
import { createRuleSet, type RuleSet } from './rule-set.ts';

/** Store rules kept at most (API.md §20). */
export const STORE_POLICIES_MAX = 10_000;
/** How often the store's generation is read: changes elsewhere show within a second. */
export const POLICY_POLL_MS = 250;

export interface PolicyAdmin {
  list(p: Principal): readonly PolicyRule[];
  put(p: Principal, input: unknown): Promise<PolicyRule>;
  delete(p: Principal, id: unknown): Promise<boolean>;
  /** Reads the store's rules now (at start, and when the generation moved). */
  refresh(): Promise<void>;
  start(): Promise<void>;
  stop(): void;
}

function forbidden(): DomainError {
  return new DomainError('FORBIDDEN', 'policy rules are for admins');
}

export function createPolicyAdmin(ctx: EngineContext): PolicyAdmin {
  const set: RuleSet = ctx.policies ?? createRuleSet();
  const policyCtx = (): PolicyContext => ({
    channels: ctx.channels.names(),
    escalationPolicies: new Set(ctx.escalationPolicies?.keys() ?? []),
  });
  let seen = '';
  let timer: ReturnType<typeof setInterval> | null = null;

  /** A stored rule ready to decide; one that no longer checks (a channel removed) is skipped. */
  function fromStore(s: StoredPolicy): PolicyRule | null {
    try {
      const { spec, compiled } = parsePolicyRule(JSON.parse(s.rule), 'policy', policyCtx());
      return {
        ...spec,
        source: 'store',
        version: String(s.version),
        createdBy: s.createdBy,
        createdAt: s.createdAt,
        compiled,
      };
    } catch (err) {
      ctx.logger.warn(
        { ruleId: s.id, err: err instanceof Error ? err.message : 'invalid' },
        'store policy rule skipped',
      );
      return null;
    }
  }

  /** Both generations (rules and grants), read before what they cover: a change after is seen next time. */
  async function generation(): Promise<string> {
    const [rules, grants] = await Promise.all([
      ctx.store.policies.generation(),
      ctx.store.grants.generation(),
    ]);
    return `${rules}:${grants}`;
  }

  async function refresh(): Promise<void> {
    const now = await generation();
    const [stored, grants] = await Promise.all([ctx.store.policies.list(), ctx.store.grants.list()]);
    set.setStoreRules(stored.map(fromStore).filter((r): r is PolicyRule => r !== null));
    const at = ctx.clock();
    set.setGrants(grants.filter((g) => g.expiresAt > at).map(grantRule));
    seen = now;
  }

  async function poll(): Promise<void> {
    if ((await generation()) !== seen) await refresh();
  }

  const manifestIds = () =>
    new Set(
      set
        .rules()
        .filter((r) => r.source === 'manifest')
        .map((r) => r.id),
    );

  return {
    list(p) {
      if (!hasRole(p, 'admin') && !hasRole(p, 'auditor')) throw forbidden();
      return set.rules();
    },
    async put(p, input) {
      if (!hasRole(p, 'admin')) throw forbidden();
      const { spec } = parsePolicyRule(input, 'input', policyCtx());
      if (manifestIds().has(spec.id)) {
        throw badInput('a manifest rule has this id (change it in the manifest)', 'input.id');
      }
      const json = policyRuleJson(spec);
      const at = ctx.clock();
      const r = await ctx.store.policies.put(spec.id, JSON.stringify(json), STORE_POLICIES_MAX, {
        actor: p.id,
        at,
        detail: {
          ruleId: spec.id,
          change: 'put',
          effect: spec.effect,
          mode: spec.mode,
          ruleDigest: jcsDigest(json),
        },
      });
      if (r === 'limit') {
        throw new DomainError('LIMIT_EXCEEDED', `at most ${STORE_POLICIES_MAX} store policy rules are kept`);
      }
      // Applied here at once; the others see the generation move.
      await refresh();
      return set.rules().find((x) => x.id === spec.id && x.source === 'store')!;
    },
    async delete(p, id) {
      if (!hasRole(p, 'admin')) throw forbidden();
      if (typeof id !== 'string') throw badInput('id must be a string', 'id');
      if (manifestIds().has(id))
        throw badInput('a manifest rule cannot be deleted here (edit the manifest)', 'id');
      const deleted = await ctx.store.policies.delete(id, {
        actor: p.id,
        at: ctx.clock(),
        detail: { ruleId: id, change: 'delete' },
      });
      if (deleted) await refresh();
      return deleted;
    },
    refresh,
    async start() {
      // A store that cannot be read now does not stop the start: until the poll reads the
      // store's rules, asks are decided by the manifest's alone (a store DENY not yet read
      // cannot override a manifest ALLOW meanwhile). One warning per outage.
      let failing = false;
      const readNow = (read: () => Promise<void>) =>
        read().then(
          () => {
            failing = false;
          },
          (err: unknown) => {
            if (!failing)
              ctx.logger.warn(
                { err: err instanceof Error ? err.message : 'unknown' },
                'store policy rules could not be read',
              );
            failing = true;
          },
        );
      await readNow(refresh);
      timer = setInterval(() => void readNow(poll), POLICY_POLL_MS);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
