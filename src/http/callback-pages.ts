// The pages a GET on a callback URL shows (API.md §7), and the page a browser's form POST gets
// back. Each is built from the question (its text, schema and action, escaped) and never from
// the request. The only control on any page is a form that
// POSTs back to the same URL, so a link scanner's prefetch changes nothing and the person's
// click performs the claim. The one stylesheet is inline and allowed by its hash: no script,
// no second request, and the CSP stays `default-src 'none'`.
import { createHash } from 'node:crypto';
import {
  ARG_FIELD_PREFIX,
  AS_PROPOSED,
  AS_PROPOSED_FIELD,
  flatProperties,
  pageCanEdit,
} from '../domain/approval-form.ts';
import { presentOn } from '../domain/presentation.ts';
import type { ActionSpec, JsonObject } from '../domain/question.ts';
import { fitWidth } from '../domain/values.ts';
import type { CallbackPage, PageQuestion } from '../engine/answers/callbacks.ts';

/** Small screens first: one readable column, large touch targets, the system's colours. */
const STYLE = [
  ':root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}',
  'body{margin:0;padding:1rem;background:Canvas;color:CanvasText}',
  'main{max-width:32rem;margin:2rem auto;padding:1.5rem;border:1px solid color-mix(in srgb,CanvasText 15%,transparent);border-radius:.75rem}',
  'h1{font-size:1.4rem;margin:0 0 .75rem}',
  'p{margin:0 0 1rem}',
  'label{display:block;font-weight:600;margin-bottom:.25rem}',
  'small{display:block;opacity:.75;margin-top:.25rem}',
  'input,select{box-sizing:border-box;width:100%;font:inherit;padding:.6rem;border-radius:.4rem;border:1px solid color-mix(in srgb,CanvasText 35%,transparent)}',
  'button{font:inherit;font-weight:600;width:100%;padding:.75rem;border:0;border-radius:.5rem;background:#2563eb;color:#fff;cursor:pointer}',
  'button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}',
  'table{width:100%;border-collapse:collapse;margin:0 0 1rem}th,td{text-align:left;vertical-align:top;padding:.3rem .4rem;border-bottom:1px solid color-mix(in srgb,CanvasText 15%,transparent);overflow-wrap:anywhere}',
  'pre{margin:0;white-space:pre-wrap;font:inherit}textarea{box-sizing:border-box;width:100%;font:inherit;padding:.6rem;border-radius:.4rem}',
  '.row{display:flex;gap:.5rem;margin:0 0 1rem}.reject{background:#b91c1c}',
  '.q{margin:0 0 1rem;padding:.5rem .75rem;border-left:4px solid #2563eb;white-space:pre-wrap;overflow-wrap:anywhere}',
].join('');

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Longest question text a page shows; a longer one is cut with an ellipsis. */
const ABOUT_MAX = 500;

/** The question a page is about, above its controls; an approval's outcome once decided. */
function aboutHtml(about: PageQuestion | null | undefined): string {
  if (!about) return '';
  const text = escapeHtml(fitWidth(about.text, ABOUT_MAX));
  const decided =
    about.decision === 'APPROVED'
      ? about.edited
        ? '<p><strong>Approved with changes.</strong></p>'
        : '<p><strong>Approved.</strong></p>'
      : about.decision === 'REJECTED'
        ? '<p><strong>Rejected.</strong></p>'
        : '';
  return `<blockquote class="q">${text}</blockquote>${decided}`;
}

function page(title: string, body: string, about?: PageQuestion | null): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="referrer" content="no-referrer"><title>${title}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${title}</h1>${aboutHtml(about)}${body}</main></body></html>`
  );
}

type About = PageQuestion | null;

function confirmPage(about: About): string {
  return page(
    'Confirm',
    '<p>Press the button to confirm. Nothing happens until you do.</p>' +
      '<form method="post"><button type="submit">Confirm</button></form>',
    about,
  );
}
function replyElsewherePage(about: About): string {
  return page(
    'Reply where you received this',
    '<p>This question is answered by replying in the conversation where you received it.</p>',
    about,
  );
}
/**
 * A choice link's page: the question, the chosen answer (the question's own label, escaped) and
 * a button that posts its index back. The form has no action, so it posts to this same URL.
 */
function choicePage(index: number, label: string, about: About): string {
  return page(
    'Confirm your answer',
    `<p>Your answer: <strong>${escapeHtml(label)}</strong></p><p>Nothing is sent until you press the button.</p>` +
      `<form method="post" enctype="application/x-www-form-urlencoded"><input type="hidden" name="choice" value="${index}"><button type="submit">Send this answer</button></form>`,
    about,
  );
}
/** A TEXT question's one field; a sensitive answer is masked and never offered for autofill. */
function textPage(sensitive: boolean, about: About): string {
  const field = sensitive
    ? '<input type="password" id="a" name="answer" required autocomplete="off">'
    : '<input type="text" id="a" name="answer" required>';
  return page(
    'Your answer',
    `<form method="post" enctype="application/x-www-form-urlencoded"><p><label for="a">Your answer</label>${field}</p><button type="submit">Send</button></form>`,
    about,
  );
}
function donePage(about: About): string {
  return page('Done', '<p>This has been answered. Thank you.</p>', about);
}
function closedPage(about: About): string {
  return page(
    'Closed',
    '<p>This question has timed out or was cancelled; it no longer takes answers.</p>',
    about,
  );
}
const NOT_FOUND = page('Not found', '<p>This link is not valid, or it has expired.</p>');
const NOT_ACCEPTED = page(
  'Not accepted',
  '<p>That answer was not accepted. Go back, check the fields and send it again.</p>',
);

/** The 404 page: one constant for every unknown, expired or malformed ticket. */
export const NOT_FOUND_PAGE = NOT_FOUND;

function labelOf(name: string, prop: JsonObject): string {
  return escapeHtml(typeof prop.title === 'string' && prop.title.trim() ? prop.title : name);
}

function fieldHtml(name: string, prop: JsonObject, required: boolean, index: number): string {
  const id = `f${index}`;
  const attrs = `id="${id}" name="${escapeHtml(name)}"${required ? ' required' : ''}`;
  const label = `<label for="${id}">${labelOf(name, prop)}</label>`;
  const hint = typeof prop.description === 'string' ? `<small>${escapeHtml(prop.description)}</small>` : '';
  const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== 'null') : prop.type;
  let control: string;
  if (Array.isArray(prop.enum)) {
    const options = prop.enum
      .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
      .map((v) => `<option value="${escapeHtml(String(v))}">${escapeHtml(String(v))}</option>`)
      .join('');
    control = `<select ${attrs}>${required ? '' : '<option value=""></option>'}${options}</select>`;
  } else if (type === 'boolean') {
    control = `<select ${attrs}><option value="true">Yes</option><option value="false">No</option></select>`;
  } else if (type === 'integer' || type === 'number') {
    control = `<input type="number" step="${type === 'integer' ? '1' : 'any'}" ${attrs}>`;
  } else {
    control = `<input type="text" ${attrs}>`;
  }
  return `<p>${label}${control}${hint}</p>`;
}

export function formPage(schema: JsonObject, about: About = null): string {
  const props = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = Object.entries(props)
    .filter(([, p]) => p && typeof p === 'object')
    .map(([name, p], i) => fieldHtml(name, p, required.has(name), i))
    .join('');
  const title =
    typeof schema.title === 'string' && schema.title.trim() ? escapeHtml(schema.title) : 'Your answer';
  return page(
    title,
    `<form method="post" enctype="application/x-www-form-urlencoded">${fields}<button type="submit">Send</button></form>`,
    about,
  );
}

function shownValue(v: unknown): string {
  return escapeHtml(typeof v === 'string' ? v : (JSON.stringify(v, null, 2) ?? String(v)));
}

function argumentRows(args: JsonObject): string {
  const rows = Object.entries(args)
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td><pre>${shownValue(v)}</pre></td></tr>`)
    .join('');
  return rows === '' ? '<p>No arguments.</p>' : `<table><tbody>${rows}</tbody></table>`;
}

/** One prefilled field of the edit form (a flat schema's property), named `arg.<name>`. */
function editField(name: string, prop: JsonObject, value: unknown, index: number): string {
  const id = `e${index}`;
  const attrs = `id="${id}" name="${escapeHtml(ARG_FIELD_PREFIX + name)}"`;
  const label = `<label for="${id}">${labelOf(name, prop)}</label>`;
  const current = value === undefined || value === null ? '' : String(value);
  const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== 'null') : prop.type;
  let control: string;
  if (Array.isArray(prop.enum) || type === 'boolean') {
    const choices = Array.isArray(prop.enum) ? prop.enum.map(String) : ['true', 'false'];
    const options = choices
      .map(
        (c) =>
          `<option value="${escapeHtml(c)}"${c === current ? ' selected' : ''}>${escapeHtml(c)}</option>`,
      )
      .join('');
    control = `<select ${attrs}>${options}</select>`;
  } else if (type === 'integer' || type === 'number') {
    control = `<input type="number" step="${type === 'integer' ? '1' : 'any'}" ${attrs} value="${escapeHtml(current)}">`;
  } else {
    control = `<input type="text" ${attrs} value="${escapeHtml(current)}">`;
  }
  return `<p>${label}${control}</p>`;
}

const FORM_OPEN = '<form method="post" enctype="application/x-www-form-urlencoded">';
const NOTE =
  '<p><label for="n">Note (optional)</label><textarea id="n" name="note" rows="2" maxlength="2000"></textarea></p>';
const REJECT =
  '<button type="submit" name="decision" value="REJECTED" class="reject" formnovalidate>Reject</button>';

/**
 * An APPROVAL's page: the action, its arguments, a note and the two buttons (each posts its
 * decision). An editable action with a flat schema gets its fields prefilled, and then the page
 * is one form, so the note goes with whichever button is pressed, "Approve with these
 * arguments" included. That button comes first in the form, so Enter in a field approves the
 * edit; "Approve as proposed" posts `approve=as-proposed` (the fields it carries are ignored)
 * and, like Reject, skips the fields' validation.
 */
export function approvalPage(action: ActionSpec, about: About = null, stepUpUrl?: string): string {
  // From the one presentation object the answer's presentedDigest digests (API.md §23).
  const shown = presentOn('callback', action, action.arguments);
  const head =
    `<p><strong>${escapeHtml(shown.name)}</strong>${shown.summary ? ` — ${escapeHtml(shown.summary)}` : ''}</p>` +
    (typeof shown.arguments === 'string'
      ? `<pre>${escapeHtml(shown.arguments)}</pre>`
      : argumentRows(shown.arguments));
  if (stepUpUrl !== undefined) {
    // A HIGH action needs the approver's passkey (API.md §23): approved in the inbox, where the
    // browser can ask for it; this page stays script-free and can only reject.
    const inbox = `<p>Approving this needs your passkey: <a href="${escapeHtml(stepUpUrl)}">approve it in the inbox</a>.</p>`;
    return page(
      'Approve this action?',
      `${head}${inbox}${FORM_OPEN}${NOTE}<div class="row">${REJECT}</div></form>`,
    );
  }
  if (!pageCanEdit(action)) {
    const buttons =
      '<div class="row"><button type="submit" name="decision" value="APPROVED">Approve</button>' +
      `${REJECT}</div>`;
    return page('Approve this action?', `${head}${FORM_OPEN}${NOTE}${buttons}</form>`, about);
  }
  const props = flatProperties(action.argumentsSchema) ?? {};
  const fields = Object.entries(props)
    .map(([name, prop], i) => editField(name, prop, action.arguments[name], i))
    .join('');
  const edit =
    `<h2>Edit and approve</h2>${fields}` +
    '<p><button type="submit" name="decision" value="APPROVED">Approve with these arguments</button></p>';
  const asProposed =
    `<h2>Or decide on the proposal</h2><div class="row"><button type="submit" name="${AS_PROPOSED_FIELD}" value="${AS_PROPOSED}" formnovalidate>Approve as proposed</button>` +
    `${REJECT}</div>`;
  return page('Approve this action?', `${head}${FORM_OPEN}${NOTE}${edit}${asProposed}</form>`, about);
}

export function renderCallbackPage(p: CallbackPage): { status: number; html: string } {
  switch (p.kind) {
    case 'confirm':
      return { status: 200, html: confirmPage(p.about) };
    case 'choice':
      return { status: 200, html: choicePage(p.index, p.label, p.about) };
    case 'reply-elsewhere':
      return { status: 200, html: replyElsewherePage(p.about) };
    case 'text':
      return { status: 200, html: textPage(p.sensitive, p.about) };
    case 'form':
      return { status: 200, html: formPage(p.schema, p.about) };
    case 'approval':
      return { status: 200, html: approvalPage(p.action, p.about, p.stepUpUrl) };
    case 'done':
      return { status: 200, html: donePage(p.about) };
    case 'closed':
      return { status: 200, html: closedPage(p.about) };
    default:
      return { status: 404, html: NOT_FOUND };
  }
}

/**
 * What a browser's form POST sees instead of JSON: Done once recorded (or already recorded),
 * Closed for a closed question, Not accepted for an invalid form. Anything else stays JSON.
 */
export function pageAfterPost(
  result: 'answered' | 'already_answered' | 'closed' | 'invalid',
  after?: CallbackPage,
): string {
  // The page as it stands after the POST names the question (and an approval's outcome).
  const about = after && after.kind !== 'not-found' ? after.about : null;
  if (result === 'closed') return closedPage(about);
  if (result === 'invalid') return NOT_ACCEPTED;
  return donePage(about);
}

/** Every callback response carries these (API.md §7); pages need only their own stylesheet. */
export const CALLBACK_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
};
