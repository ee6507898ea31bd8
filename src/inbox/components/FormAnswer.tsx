// A FORM question: react-jsonschema-form over the question's JSON Schema, validated in the page by
// the cfworker adapter (no generated code, so the strict CSP holds). The server checks again;
// an error it puts on a field (`answer.email`) shows on that field.
import Form from '@rjsf/core/lib/components/Form.js';
import type { RJSFSchema, UiSchema, UnsupportedFieldProps } from '@rjsf/utils';
import { useId, useMemo, useState } from 'react';
import { createCfworkerValidator, serverErrorSchema } from '../lib/form-validator.ts';
import { plainId } from './hooks.ts';

const validator = createCfworkerValidator();

const UI_SCHEMA: UiSchema = {
  'ui:submitButtonOptions': { submitText: 'Submit', props: { className: 'primary' } },
};

/** rjsf's own notice renders markdown built from schema text; this one is plain text. */
function UnsupportedField({ reason }: UnsupportedFieldProps) {
  return (
    <p className="media-blocked">
      <span className="badge badge-warning">Unsupported field</span> This part of the form cannot be shown
      here{reason ? `: ${reason}` : ''}.
    </p>
  );
}

const TEMPLATES = { UnsupportedFieldTemplate: UnsupportedField };

export interface ServerFieldError {
  message: string;
  field: string | undefined;
}

export function FormAnswer({
  schema,
  busy,
  send,
  serverError,
}: {
  schema: Record<string, unknown>;
  busy: boolean;
  send(answer: unknown): void;
  serverError: ServerFieldError | null;
}) {
  const idPrefix = plainId(useId());
  const [formData, setFormData] = useState<unknown>(undefined);
  const rjsfSchema = useMemo(() => structuredClone(schema) as RJSFSchema, [schema]);
  const extraErrors = useMemo(
    () => (serverError ? serverErrorSchema(serverError.message, serverError.field) : undefined),
    [serverError],
  );
  return (
    <div className="answer answer-form">
      <Form
        schema={rjsfSchema}
        uiSchema={UI_SCHEMA}
        validator={validator}
        templates={TEMPLATES}
        idPrefix={idPrefix}
        formData={formData}
        onChange={(e) => setFormData(e.formData)}
        onSubmit={(e) => send(e.formData ?? {})}
        // The errors show on their fields; rjsf's default would also log them to the console.
        onError={() => {}}
        extraErrors={extraErrors}
        showErrorList={false}
        noHtml5Validate
        focusOnFirstError
        disabled={busy}
      />
    </div>
  );
}
