// tai-interactions/openai's Agents SDK adapter with @openai/agents itself (0.14.x: the newest
// line whose `openai` dependency, 6.x, runs on Node 20 — 0.15 and later need openai 7, Node 22).
// A stub model (the SDK's own `Model` interface) calls a tool that `needsApproval`, or a hosted
// MCP tool with `requireApproval: 'always'`; `run()` stops with interruptions; the adapter asks
// a real server, where a person answers (GraphQL or REST), approves or rejects them on the
// run's state, and `run(agent, state)` goes on: the tool runs, or the model reads the rejection.
import { readFileSync } from 'node:fs';
import {
  Agent,
  type AgentInputItem,
  hostedMcpTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
  RunState,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createAgentsApprovals, type ParkedInterruptions } from '../../src/client/adapters/openai.ts';
import { TimedOutError, verifyWebhook } from '../../src/client/index.ts';
import type { TestServer } from '../support/server.ts';
import { type Receiver, startReceiver, webhookSecret } from '../webhooks/receiver.ts';
import { agentClient, listening, person } from './support.ts';

const AGENTS_VERSION = (
  JSON.parse(readFileSync('node_modules/@openai/agents/package.json', 'utf8')) as { version: string }
).version;

/** A model that answers each request with the next scripted output, and keeps what it was sent. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: ModelResponse['output'][]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.script.shift();
    if (!output) throw new Error('the script has no more responses');
    return { usage: new Usage(), output, responseId: `resp_${this.requests.length}` };
  }

  // biome-ignore lint/correctness/useYield: the runs here never stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in these tests');
  }
}

const done: ModelResponse['output'] = [
  {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'done' }],
  },
];

function callingTool(name: string, args: Record<string, unknown>): ModelResponse['output'] {
  return [
    { type: 'function_call', callId: 'call_1', name, arguments: JSON.stringify(args), status: 'completed' },
  ];
}

/** What the model was told the tool returned, on its last request. */
function toolOutputSent(model: ScriptedModel): unknown {
  const input = model.requests.at(-1)?.input as AgentInputItem[];
  const result = input.find((i) => i.type === 'function_call_result');
  return result?.type === 'function_call_result' ? result.output : undefined;
}

function agentWith(model: Model, ran: string[]) {
  const deleteBranch = tool({
    name: 'delete_branch',
    description: 'Deletes a git branch',
    parameters: z.object({ branch: z.string() }),
    needsApproval: true,
    execute: async ({ branch }) => {
      ran.push(branch);
      return `deleted ${branch}`;
    },
  });
  return new Agent({ name: 'janitor', instructions: 'Clean up.', model, tools: [deleteBranch] });
}

describe(`tai-interactions/openai with @openai/agents ${AGENTS_VERSION}`, () => {
  let t: TestServer & { url: string };

  beforeAll(async () => {
    setTracingDisabled(true);
    t = await listening();
  });
  afterAll(() => t.close());

  it('is tested against @openai/agents 0.14', () => {
    expect(AGENTS_VERSION).toMatch(/^0\.14\./);
  });

  it('an approval through GraphQL: the state approves it and the tool runs', async () => {
    const model = new ScriptedModel([callingTool('delete_branch', { branch: 'old' }), done]);
    const ran: string[] = [];
    const agent = agentWith(model, ran);
    const by = person(t);
    const approvals = createAgentsApprovals(agentClient(t), {
      onAsked: by.viaGraphql({ decision: 'APPROVED' }),
    });

    let result = await run(agent, 'clean up old');
    expect(result.interruptions).toHaveLength(1);
    while (result.interruptions.length > 0) {
      const state = await approvals.answer(result);
      expectTypeOf(state).toEqualTypeOf(result.state);
      expect(state).toBeInstanceOf(RunState);
      result = await run(agent, state);
    }

    expect(ran).toEqual(['old']);
    expect(result.finalOutput).toBe('done');
    expect(toolOutputSent(model)).toMatchObject({ type: 'text', text: 'deleted old' });
    const [id] = await by.settled();
    expect(await agentClient(t).question(id!)).toMatchObject({
      status: 'ANSWERED',
      decision: 'APPROVED',
      text: 'Allow delete_branch?',
      action: { name: 'openai-agents.delete_branch', arguments: { branch: 'old' }, editable: false },
    });
  });

  it('a rejection through REST: the tool does not run; the model is told who rejected it and why', async () => {
    const model = new ScriptedModel([callingTool('delete_branch', { branch: 'main' }), done]);
    const ran: string[] = [];
    const agent = agentWith(model, ran);
    const approvals = createAgentsApprovals(agentClient(t), {
      onAsked: person(t).viaRest({ decision: 'REJECTED', note: 'never main' }),
    });

    const first = await run(agent, 'delete main');
    const result = await run(agent, await approvals.answer(first));

    expect(ran).toEqual([]);
    expect(result.finalOutput).toBe('done');
    expect(toolOutputSent(model)).toMatchObject({ type: 'text', text: 'Rejected by ops: never main' });
  });

  it('a hosted MCP tool with requireApproval: its server and arguments reach the question', async () => {
    const approvalRequest = {
      type: 'mcp_approval_request',
      id: 'mcpr_1',
      server_label: 'github',
      name: 'delete_repo',
      arguments: '{"repo":"acme/old"}',
    };
    const model = new ScriptedModel([
      [
        {
          type: 'hosted_tool_call',
          name: 'mcp_approval_request',
          id: 'mcpr_1',
          status: 'completed',
          providerData: approvalRequest,
        },
      ],
      done,
    ]);
    const github = hostedMcpTool({
      serverLabel: 'github',
      serverUrl: 'https://mcp.example/',
      requireApproval: 'always',
    });
    const agent = new Agent({ name: 'repo-admin', model, tools: [github] });
    const by = person(t);
    const approvals = createAgentsApprovals(agentClient(t), {
      onAsked: by.viaGraphql({ decision: 'REJECTED', note: 'keep it' }),
    });

    const first = await run(agent, 'delete acme/old');
    expect(first.interruptions).toHaveLength(1);
    const state = await approvals.answer(first);
    await run(agent, state);

    const [id] = await by.settled();
    expect((await agentClient(t).question(id!))?.action).toMatchObject({
      name: 'openai-agents.mcp.github.delete_repo',
      arguments: { repo: 'acme/old' },
    });
    // The SDK sent the hosted server's answer: the approval request refused, with the reason.
    const sent = JSON.stringify(model.requests.at(-1)?.input);
    expect(sent).toContain('"approval_request_id":"mcpr_1"');
    expect(sent).toContain('"approve":false');
    expect(sent).toContain('Rejected by ops: keep it');
  });

  it('nobody decides: TimedOutError (a timeout is never a rejection), or a denial with undecided "deny"', async () => {
    const model = new ScriptedModel([callingTool('delete_branch', { branch: 'stale' }), done]);
    const ran: string[] = [];
    const agent = agentWith(model, ran);
    const first = await run(agent, 'clean up stale');
    await expect(
      createAgentsApprovals(agentClient(t), { timeoutSeconds: 1 }).answer(first),
    ).rejects.toBeInstanceOf(TimedOutError);

    const state = await createAgentsApprovals(agentClient(t), {
      timeoutSeconds: 1,
      undecided: 'deny',
    }).answer(first);
    await run(agent, state);
    expect(ran).toEqual([]);
    expect(toolOutputSent(model)).toMatchObject({
      text: expect.stringMatching(/^Not approved: the approval \S+ was not decided in time$/),
    });
  });
});

describe('tai-interactions/openai: an Agents SDK run parked with a resume webhook', () => {
  const secret = webhookSecret();
  let receiver: Receiver;
  let t: TestServer & { url: string };

  beforeAll(async () => {
    setTracingDisabled(true);
    receiver = await startReceiver();
    t = await listening({
      plugins: {
        webhookEndpoints: { runs: { url: receiver.url, secret } },
        outbox: { pollMs: 20, webhookScheduleScale: 0.001 },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('parks, the state is saved as a string, and the webhook’s question resumes it: the tool runs', async () => {
    const model = new ScriptedModel([callingTool('delete_branch', { branch: 'parked' }), done]);
    const ran: string[] = [];
    const agent = agentWith(model, ran);
    const approvals = createAgentsApprovals(agentClient(t));

    const first = await run(agent, 'clean up parked');
    // What the app keeps between requests: the SDK's serialized state and the parked JSON.
    const saved = first.state.toString();
    const kept = JSON.parse(
      JSON.stringify(await approvals.park(first, { notify: 'runs' })),
    ) as ParkedInterruptions;
    expect(kept.approvals).toEqual([{ key: 'call_1', questionId: expect.any(String) }]);
    expect(await approvals.resume(await RunState.fromString(agent, saved), kept)).toBeNull();

    const q = await agentClient(t).question(kept.approvals[0]!.questionId);
    person(t).viaGraphql({ decision: 'APPROVED' })(q!);
    const [delivery] = await receiver.received(1);
    const event = verifyWebhook(delivery!.headers, delivery!.body, secret);
    expect(event.question.metadata).toEqual({
      openaiAgentsApproval: { key: 'call_1', tool: 'delete_branch' },
    });

    const state = await approvals.resume(await RunState.fromString(agent, saved), kept);
    expect(state).not.toBeNull();
    const result = await run(agent, state!);
    expect(ran).toEqual(['parked']);
    expect(result.finalOutput).toBe('done');
  });

  it('resuming a state that was not parked is refused, naming the tool call', async () => {
    const model = new ScriptedModel([callingTool('delete_branch', { branch: 'a' })]);
    const agent = agentWith(model, []);
    const first = await run(agent, 'x');
    const approvals = createAgentsApprovals(agentClient(t), { undecided: 'deny' });
    const parked = {
      approvals: [{ key: 'call_other', questionId: (await approvals.park(first)).approvals[0]!.questionId }],
    };
    await agentClient(t).cancel(parked.approvals[0]!.questionId, 'test');
    await expect(approvals.resume(first.state, parked)).rejects.toThrow(
      'the run state has no interruption call_other: resume the state that was parked',
    );
  });
});
