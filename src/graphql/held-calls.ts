// Holding askUser/awaitAnswer outside the GraphQL execution. A suspended execution keeps
// everything of its request alive for the whole hold (Yoga's fetch Request and signal, the
// parsed document, the plugin chain, every async frame between Fastify and the resolver):
// about 37 KB a held call. So on /graphql a call whose operation is that one field runs in two
// passes: the first asks (or reads) without waiting and, if the question is still PENDING,
// leaves a small note here and lets the execution finish; the route drops that response,
// waits on the note alone, then executes the same request again, and this time the resolver
// returns the outcome of the wait. The reply's bytes are those of a single execution.
// The second pass runs only the execution (graphql-js, on the first pass's cached document):
// Yoga's request handling, plugins and result processing are run again only when the outcome
// is an error, whose masking and status are Yoga's.
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../domain/principal.ts';
import type { AskOptions, AskResult, Interactions } from '../engine/types.ts';
import type { CancelSignal } from '../engine/waiters.ts';
import { type ExecutionArgs, execute, type GraphQLResolveInfo } from './graphql-js.ts';

/** What the wait needs, and nothing else. */
interface Hold {
  principal: Principal;
  id: string;
  /** As asked (null: the server's default), counted from the end of the first pass. */
  holdSeconds: number | null | undefined;
  /** askUser shows the callback URL it minted (once); awaitAnswer shows none. */
  callbackUrl: string | null;
}

type Outcome = { ok: true; result: AskResult } | { ok: false; error: unknown };

/** The first pass's operation as Yoga executed it (the document is Yoga's cached parse). */
type Operation = Pick<ExecutionArgs, 'schema' | 'document' | 'variableValues' | 'operationName'>;

/** One per /graphql request: the first pass may defer its hold here. */
export interface HeldCall {
  /** The execution hook keeps what the first pass executed, for the second. */
  executing(args: ExecutionArgs): void;
  /** The first pass leaves its hold (at most one per request). */
  defer(hold: Hold): void;
  /** Set when the first pass deferred: the route must wait, then execute again. */
  readonly deferred: boolean;
  /** Waits (until answered, the hold ends, or `signal` aborts) and keeps the outcome. */
  wait(engine: Interactions, signal: CancelSignal): Promise<void>;
  /**
   * The second pass without Yoga: the result's JSON when the outcome is a result and the
   * execution has no errors; else null, and the outcome stays for Yoga to execute again.
   */
  replay(engine: Interactions): Promise<string | null>;
  /** The second pass: the outcome of the wait, once; undefined on the first pass. */
  take(): Outcome | undefined;
}

/** The resumed execution never waits, so nothing aborts it. */
const NEVER_ABORTED = new AbortController().signal;

export function createHeldCall(): HeldCall {
  let hold: Hold | null = null;
  let operation: Operation | null = null;
  let principal: Principal | null = null;
  let outcome: Outcome | undefined;
  const call: HeldCall = {
    executing(args) {
      const { schema, document, variableValues, operationName } = args;
      operation = { schema, document, variableValues, operationName };
    },
    defer(h) {
      hold = h;
    },
    get deferred() {
      return hold !== null;
    },
    async wait(engine, signal) {
      const h = hold!;
      hold = null;
      principal = h.principal;
      try {
        const r = await engine.awaitAnswer(h.principal, h.id, { holdSeconds: h.holdSeconds, signal });
        outcome = { ok: true, result: { ...r, callbackUrl: h.callbackUrl } };
      } catch (error) {
        outcome = { ok: false, error };
      }
    },
    async replay(engine) {
      const op = operation;
      const o = outcome;
      operation = null;
      if (!op || !principal || !o?.ok) return null;
      const contextValue: HoldingContext & { signal: AbortSignal } = {
        principal,
        engine,
        signal: NEVER_ABORTED,
        heldCall: call,
      };
      const result = await execute({ ...op, contextValue });
      if (result.errors?.length) {
        outcome = o;
        return null;
      }
      // As Yoga's result processor writes a result without errors or extensions.
      return JSON.stringify(result);
    },
    take() {
      const o = outcome;
      outcome = undefined;
      return o;
    },
  };
  return call;
}

/** Hands each /graphql execution's operation to its held call (a no-op elsewhere). */
export function useHeldCalls(): Plugin {
  return {
    onExecute({ args }) {
      (args.contextValue as { heldCall?: HeldCall }).heldCall?.executing(args);
    },
  };
}

/** What the two resolvers hand over. */
export interface HoldingContext {
  principal: Principal;
  engine: Interactions;
  heldCall?: HeldCall;
}

/**
 * The hold may leave the execution only when the operation is this one field: a second pass
 * repeats the whole operation, and nothing else in it may run twice.
 */
function canDeferHold(call: HeldCall | undefined, info: GraphQLResolveInfo): call is HeldCall {
  if (!call || info.path.prev !== undefined) return false;
  const root = info.operation.selectionSet.selections;
  return root.length === 1 && root[0]!.kind === 'Field';
}

/** The second pass returns the outcome of the wait. */
function resumed(call: HeldCall | undefined): Promise<AskResult> | undefined {
  const o = call?.take();
  if (o === undefined) return undefined;
  return o.ok ? Promise.resolve(o.result) : Promise.reject(o.error);
}

/** askUser: asks without waiting and defers the hold when it can; else asks as one call. */
export function askUser(
  ctx: HoldingContext,
  info: GraphQLResolveInfo,
  input: unknown,
  opts: Omit<AskOptions, 'signal'> & { signal: AbortSignal },
): Promise<AskResult> {
  const again = resumed(ctx.heldCall);
  if (again) return again;
  const call = ctx.heldCall;
  if (!canDeferHold(call, info) || opts.holdSeconds === 0) return ctx.engine.ask(ctx.principal, input, opts);
  return ctx.engine.ask(ctx.principal, input, { ...opts, holdSeconds: 0 }).then((r) => {
    if (r.status === 'PENDING') {
      const hold = { id: r.question.id, holdSeconds: opts.holdSeconds, callbackUrl: r.callbackUrl };
      call.defer({ principal: ctx.principal, ...hold });
    }
    return r;
  });
}

/** awaitAnswer: reads without waiting and defers the hold when it can. */
export function awaitAnswer(
  ctx: HoldingContext,
  info: GraphQLResolveInfo,
  id: string,
  opts: { holdSeconds?: number | null; signal: AbortSignal },
): Promise<AskResult> {
  const again = resumed(ctx.heldCall);
  if (again) return again;
  const call = ctx.heldCall;
  if (!canDeferHold(call, info) || opts.holdSeconds === 0)
    return ctx.engine.awaitAnswer(ctx.principal, id, opts);
  return ctx.engine.awaitAnswer(ctx.principal, id, { ...opts, holdSeconds: 0 }).then((r) => {
    if (r.status === 'PENDING') {
      call.defer({
        principal: ctx.principal,
        id: r.question.id,
        holdSeconds: opts.holdSeconds,
        callbackUrl: null,
      });
    }
    return r;
  });
}
