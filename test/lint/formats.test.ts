// One list of formats (ANSWER_FORMATS in src/domain/question.ts), and a compiler that finds every
// surface a new format must reach. Proved by compiling the sources with one more format, POLL,
// added to the list (and to the two hand-written copies of the type that stand for the wire: the
// plugin contract and the SDK's generated types, as `npm run codegen` would write them): every
// switch and every Record over the formats must fail to compile, naming POLL. The lists that
// surfaces show are checked against the one list at run time.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { AnswerFormat as ChannelFormat } from '../../src/channels/types.ts';
import { FORMATS as CLI_FORMATS } from '../../src/cli/parse.ts';
import type { AnswerFormat as ClientFormat } from '../../src/client/index.ts';
import { ANSWER_FORMATS, type AnswerFormat } from '../../src/domain/question.ts';
import { FORMAT_CHOICES } from '../../src/inbox/lib/formats.ts';
import { askUserInput } from '../../src/mcp/schemas.ts';
import { REPO_ROOT } from '../support/processes.ts';

// The copies of the type the wire needs agree with the domain's, both ways (checked by tsc).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const channelsAgree: Same<ChannelFormat, AnswerFormat> = true;
const clientAgrees: Same<ClientFormat, AnswerFormat> = true;

/**
 * Every place that handles each format by name: a switch whose default says `… satisfies never`,
 * or a Record over the formats. Found by reading the sources, so a new site is judged too.
 */
function sites(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(entry.name) && !rel.includes('/generated/')) {
        const text = readFileSync(path.join(REPO_ROOT, rel), 'utf8');
        if (/format satisfies never|Record<(AnswerFormat|DomainFormat),/.test(text)) found.push(rel);
      }
    }
  };
  walk('src');
  return found.sort();
}
const SITES = sites();

/** The surfaces issue 38 named: each must be among the sites. */
const NAMED = [
  'src/domain/answer.ts',
  'src/graphql/types/enums.ts',
  'src/mcp/elicitation.ts',
  'src/channels/answer-line.ts',
  'src/channels/slack/blocks.ts',
  'src/channels/telegram/format.ts',
  'src/channels/twilio/messages.ts',
  'src/channels/discord/components.ts',
  'src/channels/teams/cards.ts',
  'src/channels/email/message.ts',
  'src/channels/email/reply.ts',
  'src/cli/parse.ts',
  'src/cli/prompt.ts',
  'src/cli/commands/answer.ts',
  'src/inbox/lib/formats.ts',
  'src/inbox/components/QuestionCard.tsx',
];

/** The three sources that declare the formats, each with POLL added. */
function withPoll(file: string, text: string): string {
  const rel = path.relative(REPO_ROOT, file).split(path.sep).join('/');
  const add = (from: string, to: string): string => {
    if (!text.includes(from)) throw new Error(`${rel} no longer declares the formats as expected`);
    return text.replace(from, to);
  };
  if (rel === 'src/domain/question.ts') return add("'APPROVAL'] as const", "'APPROVAL', 'POLL'] as const");
  if (rel === 'src/channels/types.ts') return add("| 'APPROVAL';", "| 'APPROVAL' | 'POLL';");
  if (rel === 'src/client/generated/graphql.ts')
    return add('export type AnswerFormat =\n', "export type AnswerFormat =\n  | 'POLL'\n");
  return text;
}

/** Files with an error that names POLL, compiling `sites` under `tsconfig` with POLL added. */
function failingWithPoll(tsconfig: string, sites: readonly string[]): Set<string> {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(REPO_ROOT, tsconfig), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  const host = ts.createCompilerHost(parsed.options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => {
    const text = read(file);
    return text === undefined ? undefined : withPoll(file, text);
  };
  // The sites and what they import: enough to judge them, and quicker than the whole tree.
  const rootNames = sites.map((f) => path.join(REPO_ROOT, f));
  const program = ts.createProgram({ rootNames, options: parsed.options, host });
  const failing = new Set<string>();
  // Only the sites are checked (the rest of the program is read, not judged): far quicker.
  for (const file of rootNames) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} was not read`);
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      if (ts.flattenDiagnosticMessageText(d.messageText, '\n').includes('POLL')) {
        failing.add(path.relative(REPO_ROOT, file).split(path.sep).join('/'));
      }
    }
  }
  return failing;
}

describe('one list of formats', () => {
  it('the type copies agree with the domain', () => {
    expect([channelsAgree, clientAgrees]).toEqual([true, true]);
  });

  it('every list a surface shows is the domain list: MCP, CLI, inbox filter, GraphQL schema', () => {
    const mcp = (askUserInput.shape.format.unwrap() as unknown as { options: string[] }).options;
    expect(mcp).toEqual([...ANSWER_FORMATS]);
    expect([...CLI_FORMATS].sort()).toEqual([...ANSWER_FORMATS].sort());
    expect(FORMAT_CHOICES.map((c) => c.value)).toEqual([...ANSWER_FORMATS]);
    const sdl = readFileSync(path.join(REPO_ROOT, 'schema/schema.graphql'), 'utf8');
    // The enum's lines up to its closing brace (descriptions hold braces of their own).
    const body = sdl.split('enum AnswerFormat {\n')[1]?.split('\n}\n')[0] ?? '';
    const values = body.replace(/"""[\s\S]*?"""|"[^"\n]*"/g, '').match(/\b[A-Z][A-Z_]+\b/g) ?? [];
    expect(values.sort()).toEqual([...ANSWER_FORMATS].sort());
  });

  it('every surface issue 38 named handles each format by name', () => {
    expect(NAMED.filter((f) => !SITES.includes(f))).toEqual([]);
  });

  it('a new format fails to compile at every surface until it is handled there', () => {
    const server = SITES.filter((f) => !f.startsWith('src/inbox/'));
    const failing = failingWithPoll('tsconfig.json', server);
    expect(server.filter((f) => !failing.has(f))).toEqual([]);
  }, 60_000);

  it('and in the inbox: its answer control and its name', () => {
    const inbox = SITES.filter((f) => f.startsWith('src/inbox/'));
    const failing = failingWithPoll('src/inbox/tsconfig.json', inbox);
    expect(inbox.filter((f) => !failing.has(f))).toEqual([]);
  }, 60_000);
});
