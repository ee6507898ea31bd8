// The callback page's APPROVAL form (API.md §15 "Every door renders it"): which actions the page
// can edit (a flat schema: every property a string, number, integer, boolean or enum), and the
// answer its form-encoded post gives: `decision` from the button pressed (or `approve=as-proposed`),
// an optional `note`, and for an editable action approved with its fields the edited arguments
// (`arg.<name>`).
import { badInput } from './errors.ts';
import { formFieldsToJson, formParamCount } from './form-fields.ts';
import type { ActionSpec, JsonObject } from './question.ts';
import { isPlainObject } from './values.ts';

export const ARG_FIELD_PREFIX = 'arg.';
/** The edit page's "Approve as proposed" button: its name and value. */
export const AS_PROPOSED_FIELD = 'approve';
export const AS_PROPOSED = 'as-proposed';
const FLAT_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** The properties the page's edit form shows, or null when the schema is not flat. */
export function flatProperties(schema: JsonObject | null): Record<string, JsonObject> | null {
  if (!schema || !isPlainObject(schema.properties)) return null;
  const props = schema.properties as Record<string, unknown>;
  for (const p of Object.values(props)) {
    if (!isPlainObject(p)) return null;
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
    if (!Array.isArray(p.enum) && !(typeof type === 'string' && FLAT_TYPES.has(type))) return null;
  }
  return props as Record<string, JsonObject>;
}

/** Whether the page offers the edit form for this action. */
export function pageCanEdit(action: Pick<ActionSpec, 'editable' | 'argumentsSchema'>): boolean {
  return action.editable && flatProperties(action.argumentsSchema) !== null;
}

/** The answer a form-encoded post of the approval page gives. */
export function approvalFromForm(action: ActionSpec, body: Uint8Array): JsonObject {
  const props = flatProperties(action.argumentsSchema) ?? {};
  // decision, note, and one field per property: more fields than that are refused unparsed.
  if (formParamCount(body) > Object.keys(props).length + 2) {
    throw badInput('the form has more fields than the approval page sends', 'answer');
  }
  const form = new URLSearchParams(Buffer.from(body).toString('utf8'));
  // The edit page is one form, so its note goes with every button; its "Approve as proposed"
  // button posts `approve=as-proposed` instead of a decision, so the (unchanged or not) fields
  // it carries along are not taken as an edit.
  const asProposed = form.has(AS_PROPOSED_FIELD);
  if (asProposed && (form.get(AS_PROPOSED_FIELD) !== AS_PROPOSED || form.has('decision'))) {
    throw badInput(
      `${AS_PROPOSED_FIELD} must be "${AS_PROPOSED}" and come without a decision`,
      'answer.decision',
    );
  }
  const decision = asProposed ? 'APPROVED' : form.get('decision');
  if (decision !== 'APPROVED' && decision !== 'REJECTED') {
    throw badInput('decision must be APPROVED or REJECTED', 'answer.decision');
  }
  const answer: JsonObject = { decision };
  const note = form.get('note');
  if (note !== null && note.trim() !== '') answer.note = note;
  if (decision === 'APPROVED' && !asProposed && pageCanEdit(action)) {
    const fields = new URLSearchParams();
    let edited = false;
    for (const [name, value] of form) {
      if (!name.startsWith(ARG_FIELD_PREFIX)) continue;
      fields.append(name.slice(ARG_FIELD_PREFIX.length), value);
      edited = true;
    }
    if (edited) answer.arguments = formFieldsToJson(action.argumentsSchema ?? {}, fields);
  }
  return answer;
}
