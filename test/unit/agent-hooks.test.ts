// The pure rules of the permission hooks (API.md §21): the readable summary per tool and the
// edit's diff excerpt, the action name, the edit schema, the 64 KiB input cap at and one past,
// the door's query (wait 0–600), and each client's output for every outcome.
import { describe, expect, it } from 'vitest';
import {
  claudeHookOutput,
  codexHookOutput,
  type PromptOutcome,
  permissionPromptResult,
} from '../../src/domain/hooks/decision-output.ts';
import {
  actionNameOf,
  approvalInputOf,
  argumentsSchemaOf,
  hookQueryOf,
  inputTooLarge,
  type PermissionPrompt,
  permissionRequestOf,
} from '../../src/domain/hooks/permission-request.ts';
import { diffExcerpt, toolSummary } from '../../src/domain/hooks/tool-summary.ts';
import { expectBad } from '../support/domain-errors.ts';
import { claudePermissionRequest } from '../support/hook-payloads.ts';

describe('toolSummary and diffExcerpt', () => {
  it('renders each tool on one line', () => {
    expect(toolSummary('Bash', { command: 'npm test\n  && npm run lint' })).toBe(
      '$ npm test && npm run lint',
    );
    expect(toolSummary('Edit', { file_path: '/a.ts', old_string: 'x', new_string: 'y' })).toBe('Edit /a.ts');
    expect(
      toolSummary('MultiEdit', {
        file_path: '/a.ts',
        edits: [
          { old_string: 'a', new_string: 'b' },
          { old_string: 'c', new_string: 'd' },
        ],
      }),
    ).toBe('Edit /a.ts (2 edits)');
    expect(toolSummary('Write', { file_path: '/b.md', content: 'one\ntwo' })).toBe('Write /b.md (2 lines)');
    expect(toolSummary('WebFetch', { url: 'https://x.test/a', prompt: 'p' })).toBe('Fetch https://x.test/a');
    expect(toolSummary('WebSearch', { query: 'node 20 fetch' })).toBe('Search the web: node 20 fetch');
    expect(toolSummary('Grep', { pattern: 'TODO', path: 'src' })).toBe('Grep TODO in src');
    expect(toolSummary('mcp__github__create_issue', { title: 't' })).toBe(
      'mcp__github__create_issue {"title":"t"}',
    );
  });

  it('cuts a long summary to the 300-character cap', () => {
    const s = toolSummary('Bash', { command: 'x'.repeat(1000) });
    expect([...s]).toHaveLength(300);
    expect(s.endsWith('…')).toBe(true);
    expect([...toolSummary('Bash', { command: 'y'.repeat(298) })]).toHaveLength(300);
  });

  it('shows an edit as - old and + new lines, long ones cut', () => {
    expect(diffExcerpt('Edit', { file_path: '/a', old_string: 'a\nb', new_string: 'c' })).toBe(
      '- a\n- b\n+ c',
    );
    const long = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const excerpt = diffExcerpt('Write', { file_path: '/a', content: long })!;
    expect(excerpt.split('\n')).toHaveLength(13);
    expect(excerpt).toContain('+ … 8 more lines');
    expect(diffExcerpt('Bash', { command: 'ls' })).toBeNull();
  });
});

describe('permission prompts as APPROVAL input', () => {
  const prompt = (input: Record<string, unknown>): PermissionPrompt => ({
    client: 'claude-code',
    sessionId: 's',
    toolName: 'Write',
    toolInput: input,
    cwd: null,
    toolUseId: null,
    via: 'hook',
  });

  it('names the action after the client and tool, writing other characters as _', () => {
    expect(actionNameOf('claude-code', 'Bash')).toBe('claude-code.Bash');
    expect(actionNameOf('codex', 'my tool/v2')).toBe('codex.my_tool_v2');
    expect(actionNameOf('codex', 'x'.repeat(200))).toHaveLength(100);
  });

  it("makes the edit schema from the proposal's own fields", () => {
    expect(argumentsSchemaOf({ command: 'ls', timeout: 5, run_in_background: false, env: null })).toEqual({
      type: 'object',
      properties: {
        command: { type: 'string' },
        timeout: { type: 'number' },
        run_in_background: { type: 'boolean' },
        env: { type: 'null' },
      },
      required: ['command', 'timeout', 'run_in_background', 'env'],
      additionalProperties: false,
    });
  });

  it('asks about a tool_input of exactly 64 KiB and not one byte more', () => {
    const shell = JSON.stringify({ content: '' });
    const at = { content: 'a'.repeat(65536 - Buffer.byteLength(shell)) };
    expect(Buffer.byteLength(JSON.stringify(at))).toBe(65536);
    expect(inputTooLarge(prompt(at))).toBe(false);
    expect(inputTooLarge(prompt({ content: `${at.content}a` }))).toBe(true);
  });

  it('is editable for Claude Code, not for Codex, and keys retries on session, tool and input', () => {
    const claude = approvalInputOf(
      permissionRequestOf(claudePermissionRequest('Bash', { command: 'ls' }), 'claude-code'),
      {},
    );
    const codex = approvalInputOf(
      permissionRequestOf(claudePermissionRequest('Bash', { command: 'ls' }), 'codex'),
      {},
    );
    expect(claude.action).toMatchObject({ name: 'claude-code.Bash', editable: true });
    expect(codex.action).toMatchObject({ name: 'codex.Bash' });
    expect((codex.action as Record<string, unknown>).editable).toBeUndefined();
    const other = approvalInputOf(
      permissionRequestOf(claudePermissionRequest('Bash', { command: 'ls -a' }), 'claude-code'),
      {},
    );
    expect(claude.idempotencyKey).toMatch(/^claude-code:[0-9a-f]{64}$/);
    expect(other.idempotencyKey).not.toBe(claude.idempotencyKey);
  });
});

describe('the hook door query', () => {
  it('takes wait from 0 to 600 (default 55) and refuses 601, a fraction and a repeat', () => {
    expect(hookQueryOf({}).wait).toBe(55);
    expect(hookQueryOf({ wait: '0' }).wait).toBe(0);
    expect(hookQueryOf({ wait: '600' }).wait).toBe(600);
    expectBad(() => hookQueryOf({ wait: '601' }), 'wait');
    expectBad(() => hookQueryOf({ wait: '1.5' }), 'wait');
    expectBad(() => hookQueryOf({ wait: ['1', '2'] }), 'wait');
  });

  it('passes where to ask on, and names the valid parameters for an unknown one', () => {
    expect(hookQueryOf({ channel: 'ops', audience: 'ada', timeoutSeconds: '300' }).routing).toEqual({
      channel: 'ops',
      audience: 'ada',
      timeoutSeconds: 300,
    });
    expect(() => hookQueryOf({ chanel: 'ops' })).toThrow(/expected one of "?wait"?.*"?channel"?/);
    expect(hookQueryOf({ timeoutSeconds: '31536000' }).routing.timeoutSeconds).toBe(31536000);
    expectBad(() => hookQueryOf({ timeoutSeconds: '31536001' }), 'timeoutSeconds');
    expectBad(() => hookQueryOf({ timeoutSeconds: '0' }), 'timeoutSeconds');
  });
});

describe("each client's output", () => {
  const outcome = (o: Partial<PromptOutcome>): PromptOutcome => ({
    id: 'q1',
    status: 'ANSWERED',
    answer: { decision: 'APPROVED', arguments: { command: 'ls' } },
    answeredBy: 'ops',
    edited: false,
    ...o,
  });
  const allow = { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } };

  it('allows, with updatedInput for Claude Code only when edited, never for Codex', () => {
    expect(claudeHookOutput(outcome({}))).toEqual({ hookSpecificOutput: allow });
    const edited = outcome({
      edited: true,
      answer: { decision: 'APPROVED', arguments: { command: 'ls -a' } },
    });
    expect(claudeHookOutput(edited)).toEqual({
      hookSpecificOutput: { ...allow, decision: { behavior: 'allow', updatedInput: { command: 'ls -a' } } },
    });
    expect(codexHookOutput(edited)).toEqual({ hookSpecificOutput: allow });
    expect(permissionPromptResult(edited)).toEqual({ behavior: 'allow', updatedInput: { command: 'ls -a' } });
  });

  it('denies with who and the note; decides nothing while pending, timed out or cancelled', () => {
    const rejected = outcome({
      answer: { decision: 'REJECTED', arguments: {}, note: ' ' },
      answeredBy: 'policy:no',
    });
    expect(permissionPromptResult(rejected)).toEqual({ behavior: 'deny', message: 'Rejected by policy:no' });
    for (const status of ['PENDING', 'TIMED_OUT', 'CANCELLED'] as const) {
      expect(claudeHookOutput(outcome({ status, answer: null }))).toEqual({});
      expect(codexHookOutput(outcome({ status, answer: null }))).toEqual({});
      expect(permissionPromptResult(outcome({ status, answer: null }))).toMatchObject({ behavior: 'deny' });
    }
    expect(permissionPromptResult(outcome({ status: 'TIMED_OUT', answer: null })).message).toBe(
      'No decision: question q1 timed out.',
    );
  });
});
