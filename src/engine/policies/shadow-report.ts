// policyShadowReport (API.md §20): how often people agreed with a SHADOW rule, over the
// questions the store still keeps (they leave with the questions' retention). A paged scan of
// the kept questions: an admin's occasional read, not a path any ask takes.
import { DomainError } from '../../domain/errors.ts';
import { countShadow, emptyShadowReport, type ShadowReport } from '../../domain/policy/shadow.ts';
import { hasRole, type Principal } from '../../domain/principal.ts';
import type { QuestionStore } from '../../store/types.ts';

const PAGE = 500;

export async function policyShadowReport(
  store: QuestionStore,
  p: Principal,
  ruleId: unknown,
): Promise<ShadowReport> {
  if (!hasRole(p, 'admin') && !hasRole(p, 'auditor')) {
    throw new DomainError('FORBIDDEN', 'policy reports are for admins and auditors');
  }
  if (typeof ruleId !== 'string')
    throw new DomainError('BAD_USER_INPUT', 'ruleId must be a string', 'ruleId');
  const report = emptyShadowReport(ruleId);
  let after: string | null = null;
  for (;;) {
    const page = await store.list({}, { first: PAGE, after });
    for (const q of page.items) if (q.format === 'APPROVAL') countShadow(report, q);
    if (!page.hasNextPage || page.endCursor === null) return report;
    after = page.endCursor;
  }
}
