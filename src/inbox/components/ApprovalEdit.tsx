// "Edit": the arguments table's values become fields in place (issue 44 item 2) — one table,
// its rows the rows of the read-only table, each value a field of a form built from
// argumentsSchema and prefilled with the proposal. A changed row is highlighted with the proposed
// value beside it; errors show under their field as on a FORM card (the page's checks, and the
// server's when it refuses an argument). The note and the decision buttons come after the table,
// inside the form (the children). The server checks the arguments again.
import Form from '@rjsf/core/lib/components/Form.js';
import type { ObjectFieldTemplateProps, RJSFSchema, UiSchema } from '@rjsf/utils';
import { type ReactNode, useId, useMemo } from 'react';
import { argumentRows } from '../lib/approval.ts';
import { createCfworkerValidator, serverErrorSchema } from '../lib/form-validator.ts';
import { isPlainObject } from '../lib/model.ts';
import { ArgumentRow, ArgumentsShell } from './ArgumentsTable.tsx';
import type { ServerFieldError } from './FormAnswer.tsx';
import { plainId } from './hooks.ts';

const validator = createCfworkerValidator();

interface EditContext {
  proposed: Record<string, unknown>;
  caption: string;
}

/** The root object's fields as the arguments table's rows (nested objects keep rjsf's layout). */
function ArgumentFields({ properties, formData, registry }: ObjectFieldTemplateProps) {
  const { proposed, caption } = registry.formContext as EditContext;
  const was = new Map(
    argumentRows(proposed, isPlainObject(formData) ? formData : {}).map((row) => [row.name, row.was]),
  );
  return (
    <ArgumentsShell caption={caption} editing>
      {properties
        .filter((p) => !p.hidden)
        .map((p) => (
          <ArgumentRow key={p.name} name={p.name} was={was.get(p.name)} wasLabel="proposed">
            {p.content}
          </ArgumentRow>
        ))}
    </ArgumentsShell>
  );
}

/** The schema's properties in the proposal's order (the order the read-only table showed). */
function orderOf(schema: Record<string, unknown>, proposed: Record<string, unknown>): string[] {
  const props = isPlainObject(schema.properties) ? schema.properties : {};
  return [...Object.keys(proposed).filter((k) => Object.hasOwn(props, k)), '*'];
}

export function ApprovalEdit({
  schema,
  proposed,
  formData,
  onChange,
  busy,
  serverError,
  caption,
  send,
  children,
}: {
  schema: Record<string, unknown>;
  proposed: Record<string, unknown>;
  formData: Record<string, unknown>;
  onChange(next: Record<string, unknown>): void;
  busy: boolean;
  /** The server's refusal of an argument (`answer.arguments.amount`), shown under its field. */
  serverError: ServerFieldError | null;
  caption: string;
  send(args: Record<string, unknown>): void;
  /** What follows the table inside the form: the note and the decision buttons. */
  children: ReactNode;
}) {
  const idPrefix = plainId(useId());
  const rjsfSchema = useMemo(() => structuredClone(schema) as RJSFSchema, [schema]);
  const uiSchema = useMemo<UiSchema>(
    () => ({ 'ui:ObjectFieldTemplate': ArgumentFields, 'ui:order': orderOf(schema, proposed) }),
    [schema, proposed],
  );
  const formContext = useMemo<EditContext>(() => ({ proposed, caption }), [proposed, caption]);
  const extraErrors = useMemo(
    () => (serverError ? serverErrorSchema(serverError.message, serverError.field, 'arguments') : undefined),
    [serverError],
  );
  return (
    <div className="approval-edit">
      <Form
        schema={rjsfSchema}
        uiSchema={uiSchema}
        validator={validator}
        idPrefix={idPrefix}
        formData={formData}
        formContext={formContext}
        onChange={(e) => onChange(isPlainObject(e.formData) ? e.formData : {})}
        onSubmit={(e) => send(isPlainObject(e.formData) ? e.formData : {})}
        // The errors show on their fields; rjsf's default would also log them to the console.
        onError={() => {}}
        extraErrors={extraErrors}
        showErrorList={false}
        noHtml5Validate
        focusOnFirstError
        disabled={busy}
      >
        {children}
      </Form>
    </div>
  );
}
