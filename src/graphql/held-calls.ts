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
import type { AskOptions, AskResult, HoldHandle, HoldSink, Interactions } from '../engine/types.ts';
import { type ExecutionArgs, execute, type GraphQLResolveInfo } from './graphql-js.ts';

type Outcome = { ok: true; result: AskResult } | { ok: false; error: unknown };

/** The resumed execution never waits, so nothing aborts it. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * One per /graphql request: the first pass may defer its hold here; the route then waits on it
 * (it is the engine's sink: nothing else is kept for the hold) and executes again. One object
 * with fields, rather than a closure per method and a note per step: it is all a held call
 * keeps of GraphQL for as long as it is held.
 */
export class HeldCall implements HoldSink {
  // The first pass's operation as Yoga executed it (the document is Yoga's cached parse).
  private schema: ExecutionArgs['schema'] | null = null;
  private document: ExecutionArgs['document'] | null = null;
  private variableValues: ExecutionArgs['variableValues'] = undefined;
  private operationName: ExecutionArgs['operationName'] = undefined;
  // The hold the first pass left (at most one per request).
  private principal: Principal | null = null;
  private id = '';
  /** As asked (null: the server's default), counted from the end of the first pass. */
  private holdSeconds: number | null | undefined = undefined;
  /** askUser shows the callback URL it minted (once); awaitAnswer shows none. */
  private callbackUrl: string | null = null;
  private handle: HoldHandle | null = null;
  private outcome: Outcome | undefined = undefined;
  /** Set when the first pass deferred: the route must wait, then execute again. */
  deferred = false;

  /** The execution hook keeps what the first pass executed, for the second. */
  executing(args: ExecutionArgs): void {
    this.schema = args.schema;
    this.document = args.document;
    this.variableValues = args.variableValues;
    this.operationName = args.operationName;
  }

  /** The first pass leaves its hold. */
  defer(
    principal: Principal,
    id: string,
    holdSeconds: number | null | undefined,
    callbackUrl: string | null,
  ) {
    this.principal = principal;
    this.id = id;
    this.holdSeconds = holdSeconds;
    this.callbackUrl = callbackUrl;
    this.deferred = true;
  }

  /**
   * Waits (until answered, the hold ends, or `cancel`); the outcome is kept and `resumed` is
   * called, once, never synchronously.
   */
  wait(engine: Interactions): void {
    this.handle = engine.holdAnswer(this.principal!, this.id, { holdSeconds: this.holdSeconds }, this);
  }

  /** The client went away: the wait ends now (the question does not). */
  cancel(): void {
    this.handle?.cancel();
  }

  held(r: AskResult): void {
    this.handle = null;
    this.outcome = { ok: true, result: { ...r, callbackUrl: this.callbackUrl } };
    this.resumed();
  }

  failed(error: unknown): void {
    this.handle = null;
    this.outcome = { ok: false, error };
    this.resumed();
  }

  /** The wait is over (the route replays the request). */
  protected resumed(): void {}

  /**
   * The second pass without Yoga: the result's JSON when the outcome is a result and the
   * execution has no errors; else null, and the outcome stays for Yoga to execute again.
   */
  async replay(engine: Interactions): Promise<string | null> {
    const o = this.outcome;
    const { schema, document, principal } = this;
    this.schema = null;
    this.document = null;
    if (!schema || !document || !principal || !o?.ok) return null;
    const contextValue: HoldingContext & { signal: AbortSignal } = {
      principal,
      engine,
      signal: NEVER_ABORTED,
      heldCall: this,
    };
    const result = await execute({
      schema,
      document,
      variableValues: this.variableValues,
      operationName: this.operationName,
      contextValue,
    });
    if (result.errors?.length) {
      this.outcome = o;
      return null;
    }
    // As Yoga's result processor writes a result without errors or extensions.
    return JSON.stringify(result);
  }

  /** The second pass: the outcome of the wait, once; undefined on the first pass. */
  take(): Outcome | undefined {
    const o = this.outcome;
    this.outcome = undefined;
    return o;
  }
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
    if (r.status === 'PENDING') call.defer(ctx.principal, r.question.id, opts.holdSeconds, r.callbackUrl);
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
    if (r.status === 'PENDING') call.defer(ctx.principal, r.question.id, opts.holdSeconds, null);
    return r;
  });
}
