// Slack's published Block Kit limits, checked before anything is sent: Slack refuses a whole
// message or modal for one field over a limit (`invalid_blocks`, `invalid_arguments`), and a
// refused modal is a click that silently does nothing. Only the blocks and elements this
// plugin builds are known; anything else is a problem too. Lengths count code points, as
// `cut` in escape.ts does.

/** https://api.slack.com/reference/block-kit — the limits of the pieces we use. */
export const BLOCK_KIT_LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  blockId: 255,
  actionId: 255,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  actionsElements: 25,
  contextElements: 10,
  inputLabel: 2000,
  buttonText: 75,
  buttonUrl: 3000,
  buttonValue: 2000,
  selectOptions: 100,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  textInputMaxLength: 3000,
  viewTitle: 24,
  callbackId: 255,
  privateMetadata: 3000,
} as const;

const L = BLOCK_KIT_LIMITS;

/**
 * The inbound door's cap (the plugin's `inboundMaxBytes`). Slack repeats the whole message (up to
 * 50 blocks of 3,000 characters) or the whole modal (up to 100 blocks, each select with 100
 * options) in every click and submission, JSON inside a form-encoded body: a long question in
 * Japanese makes a click of 100 KiB, a wide form more.
 */
export const SLACK_INBOUND_MAX_BYTES = 1024 * 1024;
/**
 * The most a modal may weigh, form-encoded as its submission repeats it: half the door's cap,
 * leaving the other half for the typed values and the rest of the payload.
 */
export const MODAL_MAX_ENCODED_BYTES = SLACK_INBOUND_MAX_BYTES / 2;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const chars = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Collects problems as `<json pointer>: <what is wrong>`, like Slack's own error messages. */
class Check {
  readonly problems: string[] = [];

  fail(path: string, message: string): void {
    this.problems.push(`${path}: ${message}`);
  }

  string(v: unknown, path: string, max: number, required: boolean): void {
    if (v === undefined && !required) return;
    if (typeof v !== 'string') {
      this.fail(path, 'must be a string');
      return;
    }
    const n = chars(v);
    if (n < 1) {
      this.fail(path, 'must not be empty');
      return;
    }
    if (n > max) this.fail(path, `must be at most ${max} characters (is ${n})`);
  }

  text(v: unknown, path: string, max: number, plainOnly: boolean, required = true): void {
    if (v === undefined && !required) return;
    if (!isObject(v) || (v.type !== 'plain_text' && v.type !== 'mrkdwn')) {
      this.fail(path, 'must be a text object');
      return;
    }
    if (plainOnly && v.type !== 'plain_text') this.fail(`${path}/type`, 'must be plain_text');
    this.string(v.text, `${path}/text`, max, true);
  }

  list(v: unknown, path: string, max: number): unknown[] {
    if (!Array.isArray(v)) {
      this.fail(path, 'must be an array');
      return [];
    }
    if (v.length < 1) this.fail(path, 'must not be empty');
    if (v.length > max) this.fail(path, `must have at most ${max} items (has ${v.length})`);
    return v;
  }

  option(o: unknown, path: string): void {
    if (!isObject(o)) {
      this.fail(path, 'must be an option object');
      return;
    }
    this.text(o.text, `${path}/text`, L.optionText, true);
    this.string(o.value, `${path}/value`, L.optionValue, true);
  }

  element(e: unknown, path: string): void {
    if (!isObject(e)) {
      this.fail(path, 'must be an element');
      return;
    }
    switch (e.type) {
      case 'button':
        this.string(e.action_id, `${path}/action_id`, L.actionId, false);
        this.text(e.text, `${path}/text`, L.buttonText, true);
        this.string(e.url, `${path}/url`, L.buttonUrl, false);
        this.string(e.value, `${path}/value`, L.buttonValue, false);
        return;
      case 'static_select':
        this.string(e.action_id, `${path}/action_id`, L.actionId, false);
        this.text(e.placeholder, `${path}/placeholder`, L.placeholder, true, false);
        this.list(e.options, `${path}/options`, L.selectOptions).forEach((o, i) => {
          this.option(o, `${path}/options/${i}`);
        });
        return;
      case 'plain_text_input':
        this.string(e.action_id, `${path}/action_id`, L.actionId, false);
        this.text(e.placeholder, `${path}/placeholder`, L.placeholder, true, false);
        if (typeof e.max_length === 'number' && e.max_length > L.textInputMaxLength) {
          this.fail(`${path}/max_length`, `must be at most ${L.textInputMaxLength}`);
        }
        return;
      case 'number_input':
        this.string(e.action_id, `${path}/action_id`, L.actionId, false);
        return;
      default:
        this.fail(`${path}/type`, 'is not an element this plugin sends');
    }
  }

  block(b: unknown, path: string): void {
    if (!isObject(b)) {
      this.fail(path, 'must be a block');
      return;
    }
    this.string(b.block_id, `${path}/block_id`, L.blockId, false);
    switch (b.type) {
      case 'section':
        this.text(b.text, `${path}/text`, L.sectionText, false);
        return;
      case 'actions':
        this.list(b.elements, `${path}/elements`, L.actionsElements).forEach((e, i) => {
          this.element(e, `${path}/elements/${i}`);
        });
        return;
      case 'context':
        this.list(b.elements, `${path}/elements`, L.contextElements).forEach((e, i) => {
          this.text(e, `${path}/elements/${i}`, L.sectionText, false);
        });
        return;
      case 'input':
        this.text(b.label, `${path}/label`, L.inputLabel, true);
        this.element(b.element, `${path}/element`);
        return;
      default:
        this.fail(`${path}/type`, 'is not a block this plugin sends');
    }
  }
}

/** The first problem Slack would refuse a message's blocks for, or null. */
export function messageProblem(blocks: unknown): string | null {
  const c = new Check();
  c.list(blocks, '/blocks', L.messageBlocks).forEach((b, i) => {
    c.block(b, `/blocks/${i}`);
  });
  return c.problems[0] ?? null;
}

/** Bytes of `json` once form-encoded (URLSearchParams), without building the encoded string. */
function formEncodedBytes(json: string): number {
  const bytes = Buffer.from(json, 'utf8');
  let n = 0;
  // Unreserved bytes stay one byte (a space becomes `+`); every other byte becomes `%XX`.
  for (const b of bytes) n += UNRESERVED[b] === 1 ? 1 : 3;
  return n;
}
const UNRESERVED = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._ ')
  UNRESERVED[c.charCodeAt(0)] = 1;

/** The first problem Slack would refuse a modal for (views.open), or null. */
export function viewProblem(view: unknown): string | null {
  // Not Slack's limit but the door's: a submission too large to be taken must not be offered.
  // Checked first, so a huge modal costs one serialisation and no walk.
  const json = JSON.stringify(view) ?? '';
  const encoded =
    Buffer.byteLength(json) > MODAL_MAX_ENCODED_BYTES ? Number.POSITIVE_INFINITY : formEncodedBytes(json);
  if (encoded > MODAL_MAX_ENCODED_BYTES) {
    return `/: a submission would repeat more than the ${MODAL_MAX_ENCODED_BYTES} bytes the door takes for a modal`;
  }
  const c = new Check();
  if (!isObject(view) || view.type !== 'modal') return '/type: must be modal';
  c.text(view.title, '/title', L.viewTitle, true);
  c.text(view.submit, '/submit', L.viewTitle, true, false);
  c.text(view.close, '/close', L.viewTitle, true, false);
  c.string(view.callback_id, '/callback_id', L.callbackId, false);
  if (typeof view.private_metadata === 'string' && chars(view.private_metadata) > L.privateMetadata) {
    c.fail('/private_metadata', `must be at most ${L.privateMetadata} characters`);
  }
  c.list(view.blocks, '/blocks', L.viewBlocks).forEach((b, i) => {
    c.block(b, `/blocks/${i}`);
  });
  return c.problems[0] ?? null;
}
