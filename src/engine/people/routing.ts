// Where a new question goes among people (API.md §22), decided at ask time after the policy
// rules: an `oncall:<group>` audience is routed to whoever is on duty now (`routedTo`), and a
// voters list naming configured groups must still reach its quorum, each person counted once.
import { badInput } from '../../domain/errors.ts';
import { ONCALL_PREFIX, oncallOf } from '../../domain/groups.ts';
import type { QuestionSpec } from '../../domain/question.ts';
import { listChoices } from '../../domain/values.ts';
import type { Directory } from './directory.ts';

/** Who is on call for `audience` at `at`, when it names a rotation; undefined for other audiences. */
export function routedToAt(
  directory: Directory,
  audience: string | null,
  at: number,
): string | null | undefined {
  const group = oncallOf(audience);
  return group === null ? undefined : directory.onCall(group, at);
}

export function routeToPeople(spec: QuestionSpec, directory: Directory, now: number): void {
  const oncall = oncallOf(spec.audience);
  if (oncall !== null) {
    if (!directory.groups.get(oncall)?.rotation) {
      const rotations = [...directory.groups.values()].filter((g) => g.rotation).map((g) => g.id);
      throw badInput(
        `no group "${oncall}" with a rotation (configured: ${listChoices(rotations)})`,
        'input.audience',
      );
    }
    spec.routedTo = directory.onCall(oncall, now);
  }
  const quorum = spec.quorum;
  if (!quorum?.voters) return;
  const at = quorum.voters.findIndex((v) => v.startsWith(ONCALL_PREFIX));
  if (at >= 0)
    throw badInput('a voter may be a person or a group:<id>, not a rotation', `input.quorum.voters[${at}]`);
  const people = directory.voterCount(quorum.voters);
  if (people !== null && people < quorum.approvals) {
    throw badInput(
      `voters name ${people} distinct people (each group's members counted once), fewer than the ${quorum.approvals} approvals needed`,
      'input.quorum.voters',
    );
  }
}
