// `askExternal`: reserve a callback, let the caller's tool build the page around it, then ask
// the EXTERNAL question with the tool's link and wait like `askUser`.
import { ClientPrepareExternalDocument } from './generated/graphql.ts';
import type { Transport } from './transport.ts';
import type {
  AnswerSchema,
  AskExternalOptions,
  AskInput,
  AskUserOptions,
  ExternalAsker,
  ExternalAskOptions,
  ExternalTool,
  PayloadOf,
} from './types.ts';
import type { Waiting } from './waiting.ts';

export interface ExternalDeps {
  transport: Transport;
  retrying: Waiting['retrying'];
  /** The client's ask: `reserved` is the callback URL the reservation already gave. */
  ask(input: AskInput, options: AskUserOptions, reserved: string | null): Promise<unknown>;
  quickTimeoutMs: number;
}

export function externalAsker<A extends { callbackUrl: string }, const S extends AnswerSchema | undefined>(
  { transport, retrying, ask, quickTimeoutMs }: ExternalDeps,
  tool: ExternalTool<A>,
  wrapOptions: AskExternalOptions<S>,
): ExternalAsker<A, S> {
  return async (args: Omit<A, 'callbackUrl'>, o: ExternalAskOptions): Promise<PayloadOf<S>> => {
    const { signal, onAsked, ...question } = o;
    const prepared = await retrying(
      () =>
        transport.request(
          ClientPrepareExternalDocument,
          { timeoutSeconds: question.timeoutSeconds ?? null },
          { signal, timeoutMs: quickTimeoutMs },
        ),
      signal,
    );
    const { callbackUrl, id } = prepared.prepareExternal;
    // If the tool throws, its error goes to the caller as it is: nothing is asked, and the
    // reservation lapses on its own.
    const link = await tool({ ...args, callbackUrl } as A);
    const answer = await ask(
      { ...question, format: 'EXTERNAL', link, verifier: wrapOptions.verifier, schema: wrapOptions.schema },
      { preparedId: id, signal, onAsked },
      callbackUrl,
    );
    return answer as PayloadOf<S>;
  };
}
