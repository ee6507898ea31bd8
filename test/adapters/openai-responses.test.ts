// tai-interactions/openai's Responses API adapter with the `openai` client itself (6.x, the
// newest line that runs on Node 20; openai 7 needs Node 22), pointed at a loopback fake of the
// Responses API: the fake answers the first request with `mcp_approval_request` output items
// (typed as the library's own `Response`), a person decides on a real server, and the next
// request the client sends carries the adapter's `mcp_approval_response` input items.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type {
  Response,
  ResponseCreateParams,
  ResponseOutputItem,
  Tool,
} from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createResponsesApprovals, type McpApprovalResponse } from '../../src/client/adapters/openai.ts';
import type { Question } from '../../src/client/index.ts';
import type { TestServer } from '../support/server.ts';
import { agentClient, listening, person } from './support.ts';

const OPENAI_VERSION = (
  JSON.parse(readFileSync('node_modules/openai/package.json', 'utf8')) as { version: string }
).version;

/** A Response as the API sends it (every field the library's type requires). */
function responseWith(id: string, output: ResponseOutputItem[]): Response {
  return {
    id,
    object: 'response',
    created_at: 1_765_000_000,
    status: 'completed',
    model: 'gpt-test',
    output,
    output_text: '',
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
  };
}

function approvalRequest(id: string, name: string, args: unknown): ResponseOutputItem.McpApprovalRequest {
  return { type: 'mcp_approval_request', id, server_label: 'github', name, arguments: JSON.stringify(args) };
}

const finalMessage: ResponseOutputItem = {
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'done', annotations: [] }],
};

interface FakeResponsesApi {
  url: string;
  /** The request bodies received, in order. */
  requests: ResponseCreateParams[];
  close(): Promise<void>;
}

/** POST /v1/responses answers with the next scripted Response; anything else is a 404. */
async function fakeResponsesApi(script: Response[]): Promise<FakeResponsesApi> {
  const requests: ResponseCreateParams[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const next = req.method === 'POST' && req.url === '/v1/responses' ? script.shift() : undefined;
      if (!next || req.headers.authorization !== 'Bearer sk-test') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponseCreateParams);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(next));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const tools: Tool[] = [
  { type: 'mcp', server_label: 'github', server_url: 'https://mcp.example/', require_approval: 'always' },
];

describe(`tai-interactions/openai with openai ${OPENAI_VERSION}`, () => {
  let t: TestServer & { url: string };
  const fakes: FakeResponsesApi[] = [];

  beforeAll(async () => {
    t = await listening();
  });
  afterAll(async () => {
    for (const f of fakes) await f.close();
    await t.close();
  });

  async function openaiWith(script: Response[]) {
    const fake = await fakeResponsesApi(script);
    fakes.push(fake);
    return { fake, openai: new OpenAI({ apiKey: 'sk-test', baseURL: `${fake.url}/v1`, maxRetries: 0 }) };
  }

  it('is tested against openai 6', () => {
    expect(OPENAI_VERSION).toMatch(/^6\./);
  });

  it('two approval requests asked at once: one approved (GraphQL), one rejected (REST); the next request carries both answers', async () => {
    const { fake, openai } = await openaiWith([
      responseWith('resp_1', [
        approvalRequest('mcpr_a', 'delete_branch', { branch: 'old' }),
        approvalRequest('mcpr_b', 'delete_repo', { repo: 'acme/www' }),
      ]),
      responseWith('resp_2', [finalMessage]),
    ]);
    const by = person(t);
    const approve = by.viaGraphql({ decision: 'APPROVED', note: 'fine' });
    const reject = by.viaRest({ decision: 'REJECTED', note: 'that is production' });
    const approvals = createResponsesApprovals(agentClient(t), {
      onAsked: (q: Question) => (q.action?.name.endsWith('delete_repo') ? reject(q) : approve(q)),
    });

    let response = await openai.responses.create({ model: 'gpt-test', tools, input: 'tidy up' });
    expect(approvals.pending(response).map((r) => r.id)).toEqual(['mcpr_a', 'mcpr_b']);
    while (approvals.pending(response).length > 0) {
      const input = await approvals.respond(response);
      expectTypeOf(input).toEqualTypeOf<McpApprovalResponse[]>();
      response = await openai.responses.create({
        model: 'gpt-test',
        tools,
        previous_response_id: response.id,
        input,
      });
    }

    expect(response.output_text).toBe('done');
    expect(fake.requests[1]).toMatchObject({
      previous_response_id: 'resp_1',
      input: [
        { type: 'mcp_approval_response', approval_request_id: 'mcpr_a', approve: true, reason: 'fine' },
        {
          type: 'mcp_approval_response',
          approval_request_id: 'mcpr_b',
          approve: false,
          reason: 'Rejected by ops: that is production',
        },
      ],
    });
    const ids = await by.settled();
    const asked = await Promise.all(ids.map((id) => agentClient(t).question(id)));
    expect(asked.map((q) => q?.action).sort((a, b) => a!.name.localeCompare(b!.name))).toMatchObject([
      { name: 'openai.mcp.github.delete_branch', arguments: { branch: 'old' }, editable: false },
      { name: 'openai.mcp.github.delete_repo', arguments: { repo: 'acme/www' }, editable: false },
    ]);
    expect(asked.map((q) => q?.text).sort()).toEqual([
      'Allow delete_branch on github?',
      'Allow delete_repo on github?',
    ]);
  });

  it('arguments that are not a JSON object are shown whole; the text and action name are the caller’s to choose', async () => {
    const { openai } = await openaiWith([
      responseWith('resp_1', [{ ...approvalRequest('mcpr_c', 'run sql!', null), arguments: 'DROP TABLE x' }]),
    ]);
    const by = person(t);
    const approvals = createResponsesApprovals(agentClient(t), {
      text: (call) => `May the agent run ${call.tool}?`,
      actionName: (call) => `db.${call.tool}`,
      onAsked: by.viaGraphql({ decision: 'APPROVED' }),
    });
    const response = await openai.responses.create({ model: 'gpt-test', tools, input: 'x' });
    const [item] = await approvals.respond(response);
    expect(item).toEqual({ type: 'mcp_approval_response', approval_request_id: 'mcpr_c', approve: true });
    const [id] = await by.settled();
    expect(await agentClient(t).question(id!)).toMatchObject({
      text: 'May the agent run run sql!?',
      action: { name: 'db.run_sql_', arguments: { input: 'DROP TABLE x' } },
    });
  });

  it('a response without approval requests needs no answer', async () => {
    const { openai } = await openaiWith([responseWith('resp_1', [finalMessage])]);
    const response = await openai.responses.create({ model: 'gpt-test', input: 'hello' });
    const approvals = createResponsesApprovals(agentClient(t));
    expect(approvals.pending(response)).toEqual([]);
    expect(await approvals.respond(response)).toEqual([]);
  });
});
