// Coding agents' permission-prompt payloads as the clients publish them (API.md §21).
//
// Claude Code: the `PermissionRequest` hook input of the hooks reference
// (https://code.claude.com/docs/en/hooks, "PermissionRequest input": session_id, transcript_path,
// cwd, permission_mode, hook_event_name, tool_name, tool_input, permission_suggestions), with the
// tool inputs of its tools (Bash: command, description, timeout; Edit: file_path, old_string,
// new_string, replace_all; Write: file_path, content; WebFetch: url, prompt).
//
// Codex: the `PermissionRequest` command-hook input of codex-rs/hooks
// (schema/generated/permission-request.command.input.schema.json, openai/codex PR #17563:
// required cwd, hook_event_name, model, permission_mode, session_id, tool_input, tool_name,
// transcript_path, turn_id; shell and network approvals use tool_name "Bash" with
// tool_input.command and, when present, tool_input.description).

export function claudePermissionRequest(
  toolName: string,
  toolInput: Record<string, unknown>,
  session = 'abc123',
): Record<string, unknown> {
  return {
    session_id: session,
    transcript_path: '/Users/dev/.claude/projects/my-project/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl',
    cwd: '/Users/dev/my-project',
    permission_mode: 'default',
    hook_event_name: 'PermissionRequest',
    tool_name: toolName,
    tool_input: toolInput,
    permission_suggestions: [
      {
        type: 'addRules',
        rules: [{ toolName, ruleContent: String(toolInput.command ?? '') }],
        behavior: 'allow',
        destination: 'localSettings',
      },
    ],
  };
}

export const claudeBash = (command: string, session?: string) =>
  claudePermissionRequest('Bash', { command, description: 'Run the command', timeout: 120000 }, session);

export function codexPermissionRequest(command: string, session = '019a7c1e-5b1f-7d11-a0b3-4f0c2d8e9a10') {
  return {
    session_id: session,
    turn_id: 'turn-1',
    transcript_path: null,
    cwd: '/home/dev/project',
    hook_event_name: 'PermissionRequest',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command, description: 'Run the project tests' },
  };
}
