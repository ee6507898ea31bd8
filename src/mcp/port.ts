// What the MCP tools need from the interactions service, and nothing more. Two adapters
// implement it: the in-process engine (the /mcp endpoint) and the SDK over HTTP (`tai mcp`).

export type WaitStatus = 'PENDING' | 'ANSWERED' | 'TIMED_OUT' | 'CANCELLED';

/**
 * A question as the tools return it: the GraphQL `Question` shape (camelCase fields), as the
 * engine's view or the SDK's `Question` gives it; the tools read only these fields.
 */
export interface McpQuestion {
  readonly id: string;
  readonly status: WaitStatus;
  /** RFC 3339 times; a task (tasks.ts) is created with its question and kept until its timeout. */
  readonly createdAt: string;
  readonly timeoutAt: string;
  /** When it was answered; closedAt: when it timed out or was cancelled (a task's last change). */
  readonly answeredAt: string | null;
  readonly closedAt: string | null;
  readonly cancelReason: string | null;
  /** Read by permission_prompt (API.md §21): the decision, who made it, and the asker's metadata. */
  readonly answer?: unknown;
  readonly answeredBy?: string | null;
  readonly edited?: boolean | null;
  readonly metadata?: Readonly<Record<string, unknown>> | null;
}

/** What an elicitation needs of a question to put it to the client's user (elicitation.ts). */
export interface ElicitedQuestion extends McpQuestion {
  readonly text: string;
  readonly format: string;
  readonly options: readonly string[] | null;
  readonly schema: Record<string, unknown> | null;
}

/** What `ask_user` and `await_answer` return as structured content. */
export interface WaitOutcome {
  status: WaitStatus;
  id: string;
  /** The answer once ANSWERED (null while PENDING or when the question closed without one). */
  answer: unknown;
  /**
   * The signed decision receipt once the question closed (API.md §16); null or absent while it is
   * pending, without receipt keys, or where it could not be read (the tools send null for all).
   */
  receipt?: string | null;
}

export interface ListRequest {
  status: WaitStatus[] | undefined;
  first: number;
  after: string | undefined;
}

export interface QuestionList {
  questions: McpQuestion[];
  totalCount: number;
  endCursor: string | null;
}

/** An error a port raises carries one of the API's codes (API.md §3). */
export interface CodedError {
  code: string;
  message: string;
}

export interface InteractionsPort {
  /**
   * Asks (the AskUserInput fields, camelCase) and waits up to `waitSeconds`. `joinWhilePending`:
   * the idempotency key joins its question only while it is PENDING (permission_prompt); a port
   * that cannot say so (the stdio bridge) joins as any idempotent ask does.
   */
  ask(
    input: Record<string, unknown>,
    waitSeconds: number,
    signal: AbortSignal,
    options?: { joinWhilePending?: boolean },
  ): Promise<WaitOutcome>;
  /** Waits again for a question asked earlier. */
  await(id: string, waitSeconds: number, signal: AbortSignal): Promise<WaitOutcome>;
  get(id: string): Promise<McpQuestion | null>;
  list(request: ListRequest): Promise<QuestionList>;
  cancel(id: string, reason: string | undefined): Promise<McpQuestion>;
  /**
   * Answering in the asker's own client (elicitation, API.md §13.1); absent where the port cannot
   * (the stdio bridge acts through the public API, which has no such door).
   */
  here?: {
    /** Records the answer of the client's user, by `mcp:<principal id>`. */
    answer(id: string, answer: unknown): Promise<void>;
    /** True the first time `key` is used within `ttlMs`. */
    useOnce(key: string, ttlMs: number): Promise<boolean>;
  };
}
