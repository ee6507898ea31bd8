// Separation of duties (API.md §2, §20, §22) as the answer path checks it: the requester, the
// people acting for them (the delegation module's `actsFor`), the asker's MCP client, the asker
// itself unless admin, and a rule's requireSeparateRequester taking the admin exception away.
import { describe, expect, it } from 'vitest';
import { principalFromClaims } from '../../src/auth/oidc-principal.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { ASKER_REFUSED, REQUESTER_REFUSED, separationRefusal } from '../../src/engine/answers/separation.ts';

const action = (extra: Record<string, unknown> = {}) =>
  ({
    name: 'payments.refund',
    summary: null,
    arguments: {},
    argumentsSchema: null,
    editable: false,
    digest: 'sha256:x',
    ...extra,
  }) as QuestionRecord['action'];
const q = (extra: Record<string, unknown> = {}, format: QuestionRecord['format'] = 'APPROVAL') => ({
  format,
  askedBy: 'bot',
  action: format === 'APPROVAL' ? action(extra) : null,
});
const why = async (
  question: ReturnType<typeof q>,
  id: string,
  roles: string[] = ['operator'],
  actsFor?: (id: string) => string[],
) =>
  (
    await separationRefusal(
      question,
      { id, roles: roles as never },
      0,
      actsFor && (async (who) => actsFor(who)),
    )
  )?.message ?? null;

describe('separationRefusal', () => {
  it('the requester, their delegates and the asker’s MCP client never decide; others may', async () => {
    const requested = q({ requestedBy: 'oidc:rita' });
    expect(await why(requested, 'oidc:rita')).toBe(REQUESTER_REFUSED);
    expect(await why(requested, 'oidc:rita', ['admin'])).toBe(REQUESTER_REFUSED);
    expect(await why(requested, 'mcp:bot')).toBe(REQUESTER_REFUSED);
    expect(
      await why(requested, 'oidc:dan', ['operator'], (who) => (who === 'oidc:dan' ? ['oidc:rita'] : [])),
    ).toBe(REQUESTER_REFUSED);
    expect(await why(requested, 'oidc:dan', ['operator'], () => ['oidc:someone-else'])).toBeNull();
    expect(await why(requested, 'ops')).toBeNull();
    expect(await why(requested, 'slack:U1')).toBeNull();
  });

  it('the asker of an APPROVAL decides only as admin; other formats are not approvals', async () => {
    expect(await why(q(), 'bot', ['agent', 'operator'])).toBe(ASKER_REFUSED);
    expect(await why(q(), 'bot', ['admin'])).toBeNull();
    expect(await why(q({}, 'CONFIRM'), 'bot', ['agent', 'operator'])).toBeNull();
    // Without a requester, the asker's MCP client may answer (elicitation, §13.1).
    expect(await why(q(), 'mcp:bot')).toBeNull();
  });

  it('requireSeparateRequester: nobody on the asking side, admins included', async () => {
    const strict = q({ requireSeparateRequester: true });
    expect(await why(strict, 'bot', ['admin'])).toBe(ASKER_REFUSED);
    expect(await why(strict, 'mcp:bot')).toBe(ASKER_REFUSED);
    expect(await why(strict, 'ops')).toBeNull();
  });
});

describe('OIDC groups claim', () => {
  const rules = { rolesClaim: 'roles', roleMap: { ops: 'operator' as const }, groupsClaim: 'groups' };
  it('keeps the usable group ids of the claim, once each; none without the claim setting', () => {
    const p = principalFromClaims(
      { sub: 's1', roles: ['ops'], groups: ['payments', 'payments', 'bad id', 7, 'sre'] },
      rules,
    );
    expect(p?.groups).toEqual(['payments', 'sre']);
    expect(principalFromClaims({ sub: 's1', groups: 'payments' }, rules)).toMatchObject({
      restricted: true,
      groups: ['payments'],
    });
    expect(
      principalFromClaims({ sub: 's1', groups: ['payments'] }, { rolesClaim: 'roles', roleMap: {} })?.groups,
    ).toBeUndefined();
  });
});
