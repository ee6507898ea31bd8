// What an approver is shown of an action (API.md §23, "What the approver saw"). Every surface that
// puts an APPROVAL in front of a person — the inbox, the callback page, the CLI, MCP elicitation,
// each channel — renders it from ONE presentation object built here, under that surface's bounds,
// and the answer path digests the same object: so when a Slack block or an SMS shows a cut summary
// or cut arguments, `presentedDigest` is the digest of the cut text that was actually shown, not of
// the whole proposal. The rendering and the digest cannot drift apart because neither is written
// twice. The digest itself is in presented-digest.ts: this module has no node:crypto, so the inbox
// renders its approval card from the very same presentation object.
import type { JsonObject } from './question.ts';

/** How much of an action a surface can show; absent bounds mean "whole". */
export interface PresentationBounds {
  /** Most characters (UTF-16 units) of the name. */
  nameChars?: number;
  /** Most characters of the summary. */
  summaryChars?: number;
  /**
   * Most characters of the arguments as the surface writes them (see `argumentsText`); past it
   * the arguments are shown, and digested, as that text cut with an ellipsis.
   */
  argumentsChars?: number;
  /** How the surface writes the arguments: indented JSON (code blocks) or one line. */
  argumentsStyle?: 'indented' | 'line';
  /**
   * How many characters a text costs on the surface, when that is not its length (Slack counts
   * its escaped mrkdwn: `&` costs five); the cut keeps the cost within the bound.
   */
  cost?: (text: string) => number;
}

/** One action as one surface shows it. */
export interface Presentation {
  name: string;
  summary: string | null;
  /** The arguments, whole (an object) or, when the surface had to cut them, the text it showed. */
  arguments: JsonObject | string;
  /** The arguments as the surface writes them (equal to `arguments` when that is already text). */
  argumentsText: string;
  /** Whether anything was cut. */
  truncated: boolean;
}

/** The surfaces an approver can see an action on (channels by their plugin). */
export const SURFACES = [
  'inbox',
  'callback',
  'cli',
  'api',
  'mcp',
  'slack',
  'teams',
  'discord',
  'telegram',
  'twilio',
  'email',
] as const;
export type Surface = (typeof SURFACES)[number];

// Slack counts the escaped mrkdwn of a section (3,000 at most, eight for the code fence).
const slackCost = (text: string): number =>
  text.length + (text.match(/&/g)?.length ?? 0) * 4 + (text.match(/[<>]/g)?.length ?? 0) * 3;

/**
 * Each surface's bounds. The whole-action surfaces (the inbox, the callback page, the CLI, the API,
 * MCP) show everything, so they share one digest for one action; a channel's bounds are what its
 * message can carry (a Slack section, a Discord message, an SMS segment budget).
 */
export const SURFACE_BOUNDS: Readonly<Record<Surface, PresentationBounds>> = {
  inbox: {},
  callback: {},
  cli: {},
  api: {},
  mcp: {},
  slack: { nameChars: 100, summaryChars: 2800, argumentsChars: 2992, cost: slackCost },
  teams: { nameChars: 200, summaryChars: 1000, argumentsChars: 4000, argumentsStyle: 'line' },
  discord: { nameChars: 100, summaryChars: 300, argumentsChars: 1000, argumentsStyle: 'line' },
  telegram: { nameChars: 100, summaryChars: 500, argumentsChars: 1500 },
  // An SMS line is `<name>: <summary>` within 200 characters, and no arguments.
  twilio: { nameChars: 98, summaryChars: 100, argumentsChars: 0 },
  email: { nameChars: 200, summaryChars: 2000, argumentsChars: 8000 },
};

/** The surface of a channel plugin (`slack`, …); a plugin this build does not know shows it whole. */
export function surfaceOfPlugin(plugin: string | undefined): Surface {
  return plugin !== undefined && (SURFACES as readonly string[]).includes(plugin)
    ? (plugin as Surface)
    : 'api';
}

/** `text` within `max` by `cost` (length by default), cut at a code point with `…`. */
export function cutTo(text: string, max: number, cost: (t: string) => number = (t) => t.length): string {
  if (cost(text) <= max) return text;
  if (max <= 0) return '';
  let out = '';
  for (const ch of text) {
    if (cost(`${out}${ch}…`) > max) break;
    out += ch;
  }
  return `${out}…`;
}

function writeArguments(args: JsonObject, style: 'indented' | 'line'): string {
  return style === 'line' ? JSON.stringify(args) : JSON.stringify(args, null, 2);
}

/** The action as a surface with `bounds` shows it; `args` are the arguments being approved. */
export function presentAction(
  action: { name: string; summary?: string | null },
  args: JsonObject,
  bounds: PresentationBounds = {},
): Presentation {
  const cost = bounds.cost;
  const name = bounds.nameChars === undefined ? action.name : cutTo(action.name, bounds.nameChars, cost);
  // A client's action may leave the summary out: it is shown, and digested, as none.
  const wholeSummary = action.summary ?? null;
  const summary =
    wholeSummary === null || bounds.summaryChars === undefined
      ? wholeSummary
      : cutTo(wholeSummary, bounds.summaryChars, cost);
  const whole = writeArguments(args, bounds.argumentsStyle ?? 'indented');
  const shown = bounds.argumentsChars === undefined ? whole : cutTo(whole, bounds.argumentsChars, cost);
  const argsCut = shown !== whole;
  return {
    name,
    summary,
    arguments: argsCut ? shown : args,
    argumentsText: shown,
    truncated: argsCut || name !== action.name || summary !== wholeSummary,
  };
}

/** The presentation of `action` with `args` on `surface`. */
export function presentOn(
  surface: Surface,
  action: { name: string; summary?: string | null },
  args: JsonObject,
): Presentation {
  return presentAction(action, args, SURFACE_BOUNDS[surface]);
}

/**
 * The action as plain lines (a terminal prompt, an MCP elicitation message): the name, the
 * summary when there is one, and the arguments as the surface writes them.
 */
export function presentationLines(p: Presentation): string[] {
  return [`Action: ${p.name}`, ...(p.summary ? [p.summary] : []), `Arguments: ${p.argumentsText}`];
}
