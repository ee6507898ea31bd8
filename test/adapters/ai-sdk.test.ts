// tai-interactions/ai-sdk with the Vercel AI SDK itself (ai 6.x, the newest line that runs on
// Node 20; ai 7 needs Node 22): `generateText` with the SDK's MockLanguageModelV3 (ai/test) and a
// tool with `needsApproval: true`, against a real server where a person answers through GraphQL
// or REST, a policy decides, or nobody does. The SDK's shapes — the `tool-approval-request`
// part in, the `tool-approval-response` part in a `tool` message out — are its own published
// types (ai's ToolApprovalRequestOutput, ToolApprovalResponse, ToolModelMessage), checked by tsc.
import { readFileSync } from 'node:fs';
import { generateText, type ModelMessage, type ToolModelMessage, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createToolApprovals, type ParkedApprovals } from '../../src/client/adapters/ai-sdk.ts';
import { BadUserInputError, TimedOutError, verifyWebhook } from '../../src/client/index.ts';
import { questionCount } from '../client/support.ts';
import type { TestServer } from '../support/server.ts';
import { type Receiver, startReceiver, webhookSecret } from '../webhooks/receiver.ts';
import { agentClient, listening, person, putRule } from './support.ts';

const AI_VERSION = (JSON.parse(readFileSync('node_modules/ai/package.json', 'utf8')) as { version: string })
  .version;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that first calls `tool` with `input`, then (after the approval round) says "done". */
function scriptedModel(toolName: string, input: Record<string, unknown>) {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
}

function deleteBranchTool(ran: unknown[]) {
  return tool({
    description: 'Deletes a git branch',
    inputSchema: z.object({ branch: z.string() }),
    needsApproval: true,
    execute: async ({ branch }) => {
      ran.push(branch);
      return { deleted: branch };
    },
  });
}

/** The tool-result parts the model was sent on its second call. */
function toolResultsSent(model: MockLanguageModelV3): unknown[] {
  const prompt = model.doGenerateCalls[1]?.prompt ?? [];
  return prompt.flatMap((m) =>
    m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result').map((p) => p.output) : [],
  );
}

describe(`tai-interactions/ai-sdk with ai ${AI_VERSION}`, () => {
  let t: TestServer & { url: string };

  beforeAll(async () => {
    t = await listening();
  });
  afterAll(() => t.close());

  it('is tested against ai 6', () => {
    expect(AI_VERSION).toMatch(/^6\./);
  });

  it('an approval through GraphQL: the SDK runs the tool with the proposed input and the model goes on', async () => {
    const ran: unknown[] = [];
    const model = scriptedModel('deleteBranch', { branch: 'old-feature' });
    const tools = { deleteBranch: deleteBranchTool(ran) };
    const by = person(t);
    const approvals = createToolApprovals(agentClient(t), {
      onAsked: by.viaGraphql({ decision: 'APPROVED', note: 'go ahead' }),
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'clean up old-feature' }];

    const first = await generateText({ model, tools, messages });
    expect(approvals.pending(first)).toHaveLength(1);
    expect(ran).toEqual([]);
    const reply = await approvals.respond(first);
    expectTypeOf(reply).toEqualTypeOf<ToolModelMessage | null>();
    const approvalId = approvals.pending(first)[0]!.approvalId;
    expect(reply).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId, approved: true, reason: 'go ahead' }],
    });
    messages.push(...first.response.messages, reply!);
    const second = await generateText({ model, tools, messages });

    expect(ran).toEqual(['old-feature']);
    expect(second.text).toBe('done');
    expect(toolResultsSent(model)).toEqual([{ type: 'json', value: { deleted: 'old-feature' } }]);
    const [id] = await by.settled();
    const q = await agentClient(t).question(id!);
    expect(q).toMatchObject({
      format: 'APPROVAL',
      status: 'ANSWERED',
      decision: 'APPROVED',
      answeredBy: 'ops',
      text: 'Allow deleteBranch?',
      action: { name: 'ai-sdk.deleteBranch', arguments: { branch: 'old-feature' }, editable: false },
    });
    expect(q?.action?.summary).toBe('deleteBranch {"branch":"old-feature"}');
  });

  it('a rejection through REST: the tool does not run and the model reads who rejected it and why', async () => {
    const ran: unknown[] = [];
    const model = scriptedModel('deleteBranch', { branch: 'main' });
    const tools = { deleteBranch: deleteBranchTool(ran) };
    const by = person(t);
    const approvals = createToolApprovals(agentClient(t), {
      onAsked: by.viaRest({ decision: 'REJECTED', note: 'never main' }),
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'delete main' }];

    const first = await generateText({ model, tools, messages });
    const reply = await approvals.respond(first);
    expect(reply?.content).toEqual([
      expect.objectContaining({ approved: false, reason: 'Rejected by ops: never main' }),
    ]);
    messages.push(...first.response.messages, reply!);
    await generateText({ model, tools, messages });

    expect(ran).toEqual([]);
    expect(toolResultsSent(model)).toEqual([
      { type: 'execution-denied', reason: 'Rejected by ops: never main' },
    ]);
    expect(await by.settled()).toHaveLength(1);
  });

  it('a DENY policy decides at once: nobody is asked, the denial names the rule', async () => {
    await putRule(t, { id: 'no-ai-drops', effect: 'DENY', action: 'ai-sdk.dropTable' });
    const model = scriptedModel('dropTable', { table: 'users' });
    const ran: unknown[] = [];
    const tools = {
      dropTable: tool({
        inputSchema: z.object({ table: z.string() }),
        needsApproval: true,
        execute: async ({ table }) => ran.push(table),
      }),
    };
    const first = await generateText({ model, tools, prompt: 'drop users' });
    const reply = await createToolApprovals(agentClient(t)).respond(first);
    expect(reply?.content).toEqual([
      expect.objectContaining({ approved: false, reason: 'Rejected by policy:no-ai-drops' }),
    ]);
    expect(ran).toEqual([]);
  });

  it('arguments past the 64 KiB cap: BadUserInputError naming the field, and nothing is asked', async () => {
    const model = scriptedModel('deleteBranch', { branch: 'x'.repeat(64 * 1024) });
    const first = await generateText({ model, tools: { deleteBranch: deleteBranchTool([]) }, prompt: 'x' });
    const before = await questionCount(t.url);
    const refused = createToolApprovals(agentClient(t)).respond(first);
    await expect(refused).rejects.toBeInstanceOf(BadUserInputError);
    await expect(refused).rejects.toMatchObject({ field: 'input.action.arguments' });
    expect(await questionCount(t.url)).toBe(before);
  });

  it('a step with nothing to approve needs no message', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'text', text: 'hi' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    });
    const result = await generateText({ model, prompt: 'hello' });
    const approvals = createToolApprovals(agentClient(t));
    expect(approvals.pending(result)).toEqual([]);
    expect(await approvals.respond(result)).toBeNull();
  });

  it('nobody decides: TimedOutError by default (never a denial); with undecided "deny", a denial naming the question', async () => {
    const model = scriptedModel('deleteBranch', { branch: 'stale' });
    const first = await generateText({ model, tools: { deleteBranch: deleteBranchTool([]) }, prompt: 'x' });
    await expect(
      createToolApprovals(agentClient(t), { timeoutSeconds: 1 }).respond(first),
    ).rejects.toBeInstanceOf(TimedOutError);
    const reply = await createToolApprovals(agentClient(t), { timeoutSeconds: 1, undecided: 'deny' }).respond(
      first,
    );
    expect(reply?.content[0]).toMatchObject({
      type: 'tool-approval-response',
      approved: false,
      reason: expect.stringMatching(/^Not approved: the approval \S+ was not decided in time$/),
    });
  });
});

describe('tai-interactions/ai-sdk parked with a resume webhook', () => {
  const secret = webhookSecret();
  let receiver: Receiver;
  let t: TestServer & { url: string };

  beforeAll(async () => {
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

  it('asks without waiting; the signed webhook names the approval; resume then answers the SDK', async () => {
    const model = scriptedModel('deleteBranch', { branch: 'parked' });
    const ran: unknown[] = [];
    const tools = { deleteBranch: deleteBranchTool(ran) };
    const messages: ModelMessage[] = [{ role: 'user', content: 'clean up' }];
    const first = await generateText({ model, tools, messages });
    const approvals = createToolApprovals(agentClient(t), { metadata: { run: 'r-1' } });
    const approvalId = approvals.pending(first)[0]!.approvalId;

    // What the app keeps between requests is plain JSON.
    const kept = JSON.parse(
      JSON.stringify(await approvals.park(first, { notify: 'runs' })),
    ) as ParkedApprovals;
    expect(kept.approvals).toEqual([{ approvalId, questionId: expect.any(String), providerExecuted: false }]);
    expect(await approvals.resume(kept)).toBeNull();

    const q = await agentClient(t).question(kept.approvals[0]!.questionId);
    person(t).viaGraphql({ decision: 'APPROVED' })(q!);
    const [delivery] = await receiver.received(1);
    const event = verifyWebhook(delivery!.headers, delivery!.body, secret);
    expect(event.question.metadata).toEqual({
      run: 'r-1',
      aiSdkApproval: { approvalId, toolCallId: 'call-1' },
    });

    const reply = await approvals.resume(kept);
    expect(reply).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId, approved: true }],
    });
    messages.push(...first.response.messages, reply!);
    const second = await generateText({ model, tools, messages });
    expect(ran).toEqual(['parked']);
    expect(second.text).toBe('done');
  });
});
