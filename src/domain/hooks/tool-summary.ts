// What a person reads about a coding agent's tool call (API.md §21): a one-line summary for the
// action (the command for Bash, the path for edits, the URL for fetches) and, for edits, a short
// excerpt of the change for the question's text. Pure: no I/O, no secrets added.
import { ACTION_SUMMARY_MAX_CHARS } from '../limits.ts';
import { clip, own } from '../values.ts';

type Input = Record<string, unknown>;

/** Lines of a diff excerpt (each side) and the characters of each line. */
const EXCERPT_LINES = 12;
const EXCERPT_LINE_CHARS = 160;

function str(input: Input, key: string): string | null {
  const v = own(input, key);
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

/** One line: newlines and runs of blanks become one space. */
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function lineCount(s: string): number {
  return s === '' ? 0 : s.split('\n').length;
}

function editsOf(input: Input): { old: string; new: string }[] {
  const edits = own(input, 'edits');
  const list = Array.isArray(edits) ? edits : [input];
  const out: { old: string; new: string }[] = [];
  for (const e of list) {
    if (typeof e !== 'object' || e === null) continue;
    const oldS = own(e, 'old_string');
    const newS = own(e, 'new_string');
    if (typeof oldS === 'string' || typeof newS === 'string') {
      out.push({ old: typeof oldS === 'string' ? oldS : '', new: typeof newS === 'string' ? newS : '' });
    }
  }
  return out;
}

/** The summary before it is cut to the action's summary cap. */
function fullSummary(tool: string, input: Input): string {
  const path = str(input, 'file_path') ?? str(input, 'notebook_path') ?? str(input, 'path');
  switch (tool) {
    case 'Bash':
    case 'shell':
    case 'exec_command':
      return `$ ${oneLine(str(input, 'command') ?? str(input, 'cmd') ?? JSON.stringify(own(input, 'command') ?? ''))}`;
    case 'Edit':
    case 'MultiEdit': {
      const n = editsOf(input).length;
      return `Edit ${path ?? '(no path)'}${n > 1 ? ` (${n} edits)` : ''}`;
    }
    case 'Write': {
      const content = str(input, 'content') ?? '';
      return `Write ${path ?? '(no path)'} (${lineCount(content)} lines)`;
    }
    case 'NotebookEdit':
      return `Edit notebook ${path ?? '(no path)'}`;
    case 'Read':
      return `Read ${path ?? '(no path)'}`;
    case 'WebFetch':
      return `Fetch ${str(input, 'url') ?? '(no URL)'}`;
    case 'WebSearch':
      return `Search the web: ${oneLine(str(input, 'query') ?? '')}`;
    case 'Glob':
    case 'Grep':
      return `${tool} ${oneLine(str(input, 'pattern') ?? '')}${path ? ` in ${path}` : ''}`;
    default: {
      // Any other tool (an MCP tool's `mcp__server__tool`): its name and its input, on one line.
      const shown = str(input, 'command') ?? str(input, 'url') ?? path ?? JSON.stringify(input);
      return `${tool} ${oneLine(shown)}`;
    }
  }
}

/** The action's one-line summary (at most the summary cap). */
export function toolSummary(tool: string, input: Input): string {
  return clip(fullSummary(tool, input), ACTION_SUMMARY_MAX_CHARS - 1);
}

function excerptOf(text: string, mark: string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, EXCERPT_LINES).map((l) => `${mark} ${clip(l, EXCERPT_LINE_CHARS)}`);
  if (lines.length > EXCERPT_LINES) shown.push(`${mark} … ${lines.length - EXCERPT_LINES} more lines`);
  return shown;
}

/**
 * The change an edit makes, as a short diff excerpt (`-` old lines, `+` new lines) for the
 * question's text; null for tools that change no file.
 */
export function diffExcerpt(tool: string, input: Input): string | null {
  if (tool === 'Write') {
    const content = str(input, 'content');
    return content === null ? null : excerptOf(content, '+').join('\n');
  }
  if (tool !== 'Edit' && tool !== 'MultiEdit') return null;
  const edits = editsOf(input);
  if (edits.length === 0) return null;
  const parts = edits.slice(0, 3).map((e) => [...excerptOf(e.old, '-'), ...excerptOf(e.new, '+')].join('\n'));
  if (edits.length > 3) parts.push(`… ${edits.length - 3} more edits`);
  return parts.join('\n…\n');
}
