// The people module of API.md §22, for groups and rotations: who a `group:<id>` or `oncall:<id>`
// stands for. One per process, built from the groups file and the manifest at start; read by the
// doors (a principal's groups, attached when it is authenticated), the answer path (an
// answerer's groups, whatever door it came by) and the ask (who is on call).
import { addressedGroup, type Group, groupOf, oncallOf } from '../../domain/groups.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { onDuty } from '../../domain/rotation.ts';

export interface Directory {
  /** The configured groups by id. */
  readonly groups: ReadonlyMap<string, Group>;
  /** The configured groups listing `identity` as a member. */
  groupsOf(identity: string): readonly string[];
  /** `p` with its configured groups added to those it brought (a signed-in person's claim). */
  withGroups(p: Principal): Principal;
  /** Who is on duty in group `id`'s rotation at `at`; null: no such rotation, or not started. */
  onCall(id: string, at: number): string | null;
  /**
   * Whether `identity` (with the groups it brought, `extra`) is one of the people a question
   * addressed to a group or a rotation is for: a member of that group.
   */
  isAddressee(q: Pick<QuestionRecord, 'audience'>, identity: string, extra?: readonly string[]): boolean;
  /** Whether `identity` is allowed by a voters list, directly or as a member of a `group:<id>` entry. */
  isVoter(voters: readonly string[], identity: string, extra?: readonly string[]): boolean;
  /** How many distinct people a voters list names, when every group in it is configured; else null. */
  voterCount(voters: readonly string[]): number | null;
}

export function createDirectory(groups: readonly Group[] = []): Directory {
  const byId = new Map(groups.map((g) => [g.id, g]));
  const memberOf = new Map<string, string[]>();
  for (const g of groups) {
    for (const m of g.members) memberOf.set(m, [...(memberOf.get(m) ?? []), g.id]);
  }
  // Principals are authenticated on every request: keep the one with groups per principal object.
  const known = new WeakMap<Principal, Principal>();

  const groupsOf = (identity: string): readonly string[] => memberOf.get(identity) ?? [];
  const inGroup = (group: string, identity: string, extra: readonly string[] = []): boolean =>
    extra.includes(group) || groupsOf(identity).includes(group);

  return {
    groups: byId,
    groupsOf,
    withGroups(p) {
      const cached = known.get(p);
      if (cached) return cached;
      const own = groupsOf(p.id);
      const all = [...new Set([...(p.groups ?? []), ...own])];
      const made =
        all.length === (p.groups?.length ?? 0) ? p : Object.freeze({ ...p, groups: Object.freeze(all) });
      known.set(p, made);
      return made;
    },
    onCall(id, at) {
      const rotation = byId.get(id)?.rotation;
      return rotation ? onDuty(rotation, at) : null;
    },
    isAddressee(q, identity, extra) {
      const group = addressedGroup(q.audience);
      return group !== null && inGroup(group, identity, extra);
    },
    isVoter(voters, identity, extra) {
      return voters.some((v) => {
        const group = groupOf(v);
        return group === null ? v === identity : inGroup(group, identity, extra);
      });
    },
    voterCount(voters) {
      const people = new Set<string>();
      for (const v of voters) {
        const group = groupOf(v) ?? oncallOf(v);
        if (group === null) {
          people.add(v);
          continue;
        }
        const g = byId.get(group);
        // A group only the identity provider knows (OIDC): its size is not known here.
        if (!g) return null;
        for (const m of g.members) people.add(m);
      }
      return people.size;
    },
  };
}
