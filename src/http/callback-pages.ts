// The pages a GET on a callback URL shows (API.md §7). Each is a constant string, except the
// form page, which is built from the question's schema (escaped) and never from the request.
// The only control on any page is a form that POSTs back to the same URL, so a link scanner's
// prefetch changes nothing and the person's click performs the claim.
import type { JsonObject } from '../domain/question.ts';
import type { CallbackPage } from '../engine/callbacks.ts';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="referrer" content="no-referrer"><title>${title}</title></head>` +
    `<body><main><h1>${title}</h1>${body}</main></body></html>`
  );
}

const CONFIRM = page(
  'Confirm',
  '<p>Press the button to confirm. Nothing happens until you do.</p>' +
    '<form method="post"><button type="submit">Confirm</button></form>',
);
const REPLY_ELSEWHERE = page(
  'Reply where you received this',
  '<p>This question is answered by replying in the conversation where you received it.</p>',
);
const DONE = page('Done', '<p>This has been answered. Thank you.</p>');
const CLOSED = page(
  'Closed',
  '<p>This question has timed out or was cancelled; it no longer takes answers.</p>',
);
const NOT_FOUND = page('Not found', '<p>This link is not valid, or it has expired.</p>');

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
  return `<p>${label}<br>${control}${hint ? `<br>${hint}` : ''}</p>`;
}

export function formPage(schema: JsonObject): string {
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
  );
}

export function renderCallbackPage(p: CallbackPage): { status: number; html: string } {
  switch (p.kind) {
    case 'confirm':
      return { status: 200, html: CONFIRM };
    case 'reply-elsewhere':
      return { status: 200, html: REPLY_ELSEWHERE };
    case 'form':
      return { status: 200, html: formPage(p.schema) };
    case 'done':
      return { status: 200, html: DONE };
    case 'closed':
      return { status: 200, html: CLOSED };
    default:
      return { status: 404, html: NOT_FOUND };
  }
}

/** Every callback response carries these (API.md §7); pages need nothing beyond `default-src 'none'`. */
export const CALLBACK_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
};
