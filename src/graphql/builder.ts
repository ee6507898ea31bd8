// The one Pothos schema builder: context, auth scopes and validation. Types and operations
// live in their own files under ./types and ./operations; ./schema.ts assembles them.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import type { Principal } from '../domain/principal.ts';
import { canReadAudit, hasRole } from '../domain/principal.ts';
import type { CallerTrace } from '../domain/trace.ts';
import type { Interactions } from '../engine/types.ts';
import { forbidden, invalidArgument } from './errors.ts';
import type { HeldCall } from './held-calls.ts';

/** What every resolver receives: who calls, the engine, and the request's abort signal. */
export interface GraphQLContext {
  principal: Principal;
  engine: Interactions;
  /** Aborts when the client goes away: ends a held wait, never the question. */
  signal: AbortSignal;
  /** On /graphql: where askUser/awaitAnswer leave a hold to wait outside the execution. */
  heldCall?: HeldCall;
  /** The caller's W3C trace headers (API.md §24): an askUser's wait span continues that trace. */
  trace?: CallerTrace | null;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  // Fields are non-null unless marked `nullable`, as in the contract (API.md §4).
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  AuthScopes: {
    /** Any role at all (a caller with no roles reaches only `viewer`). */
    authenticated: boolean;
    agent: boolean;
    operator: boolean;
    /** Reads the audit log: admins and (unrestricted) auditors. */
    auditor: boolean;
    admin: boolean;
  };
  Scalars: {
    DateTime: { Input: Date; Output: Date | number };
    JSON: { Input: unknown; Output: unknown };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
}>({
  defaultFieldNullability: false,
  // scope-auth first, so its checks wrap every other resolver wrapper.
  plugins: [ScopeAuthPlugin, ValidationPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    // Coarse, role-based gates only; the engine makes the fine-grained decisions.
    authScopes: ({ principal }) => ({
      authenticated: principal.roles.length > 0,
      agent: hasRole(principal, 'agent'),
      operator: hasRole(principal, 'operator'),
      auditor: canReadAudit(principal),
      admin: hasRole(principal, 'admin'),
    }),
    unauthorizedError: () => forbidden(),
  },
  validation: {
    validationError: (failure) => invalidArgument(failure.issues),
  },
});

builder.queryType({ description: 'Reads: questions, waits, channels and the caller.' });
builder.mutationType({ description: 'Asking, answering and cancelling questions.' });
builder.subscriptionType({ description: 'Live feeds, over SSE.' });
