// Slack's published Block Kit limits as the fake Web API enforces them, written out from Slack's
// reference (https://api.slack.com/reference/block-kit) independently of the plugin's own check,
// and refused the way Slack refuses them: `invalid_blocks` (chat.postMessage, chat.update) or
// `invalid_arguments` (views.open), with `[ERROR] … [json-pointer:/…]` messages.

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const length = (s: string): number => [...s].length;

/** A text object's maximum by the key it sits under and the type of the object holding it. */
function textMax(key: string, holder: string | undefined): number {
  if (key === 'placeholder') return 150;
  if (key === 'label' || key === 'hint') return 2000;
  if (key === 'title' || key === 'submit' || key === 'close') return 24;
  if (key === 'description') return 75;
  if (key === 'text' && (holder === 'button' || holder === 'option')) return 75;
  if (holder === 'fields') return 2000;
  return 3000;
}

/** Limits on string properties, by key (and the holder's type where it matters). */
function stringMax(key: string, holder: string | undefined): number | null {
  switch (key) {
    case 'block_id':
    case 'action_id':
    case 'callback_id':
      return 255;
    case 'url':
      return 3000;
    case 'value':
      return holder === 'option' ? 150 : holder === 'button' ? 2000 : null;
    case 'private_metadata':
      return 3000;
    default:
      return null;
  }
}

function arrayMax(key: string, holder: string | undefined, surface: 'message' | 'modal'): number | null {
  if (key === 'blocks') return surface === 'message' ? 50 : 100;
  if (key === 'options' || key === 'option_groups') return 100;
  if (key === 'elements') return holder === 'context' ? 10 : 25;
  if (key === 'fields') return 10;
  return null;
}

/** Every limit the payload breaks, as Slack words them. */
export function blockKitErrors(root: Json, pointer: string, surface: 'message' | 'modal'): string[] {
  const errors: string[] = [];
  const fail = (at: string, what: string) => errors.push(`${what} [json-pointer:${at}]`);

  function visit(node: Json, at: string, key: string, holder: string | undefined): void {
    if (Array.isArray(node)) {
      const max = arrayMax(key, holder, surface);
      if (max !== null && node.length > max) fail(at, `must provide no more than ${max} items`);
      if (max !== null && node.length === 0) fail(at, 'must provide at least 1 items');
      // An option sits in `options` with no type of its own.
      const itemHolder = key === 'options' ? 'option' : key === 'fields' ? 'fields' : holder;
      node.forEach((item, i) => {
        visit(item, `${at}/${i}`, key, itemHolder);
      });
      return;
    }
    if (!isObject(node)) return;
    const type = typeof node.type === 'string' ? node.type : holder;
    if ((node.type === 'plain_text' || node.type === 'mrkdwn') && typeof node.text === 'string') {
      const max = textMax(key, holder);
      const n = length(node.text);
      if (n === 0) fail(`${at}/text`, 'must be more than 0 characters');
      if (n > max) fail(`${at}/text`, `must be less than ${max + 1} characters`);
      return;
    }
    for (const [k, v] of Object.entries(node)) {
      const child = `${at}/${k}`;
      if (typeof v === 'string') {
        const max = stringMax(k, type);
        if (max !== null && length(v) > max) fail(child, `must be less than ${max + 1} characters`);
        if (max !== null && v.length === 0 && k !== 'private_metadata')
          fail(child, 'must be more than 0 characters');
      } else visit(v, child, k, type);
    }
  }

  visit(root, pointer, pointer === '/blocks' ? 'blocks' : '', surface === 'modal' ? 'modal' : undefined);
  return errors;
}

/** Slack's answer to a refused payload, or null when Slack would take it. */
export function refusal(method: string, args: Record<string, unknown>): Record<string, unknown> | null {
  if (method === 'views.open') {
    const errors = blockKitErrors(args.view, '/view', 'modal');
    if (errors.length === 0) return null;
    return {
      ok: false,
      error: 'invalid_arguments',
      response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
    };
  }
  if (method !== 'chat.postMessage' && method !== 'chat.update') return null;
  if (typeof args.text === 'string' && args.text.length > 40_000) return { ok: false, error: 'msg_too_long' };
  if (args.blocks === undefined) return args.text ? null : { ok: false, error: 'no_text' };
  const errors = blockKitErrors(args.blocks, '/blocks', 'message');
  if (errors.length === 0) return null;
  return {
    ok: false,
    error: 'invalid_blocks',
    errors,
    response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
  };
}
