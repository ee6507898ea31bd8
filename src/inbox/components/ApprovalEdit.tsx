// "Edit and approve": the action's arguments in a form built from argumentsSchema, prefilled with
// the proposal, validated in the page like a FORM answer; the changes are shown highlighted
// against the proposal before the approval is sent. The server checks the arguments again.
import Form from '@rjsf/core/lib/components/Form.js';
import type { RJSFSchema } from '@rjsf/utils';
import { useId, useMemo, useState } from 'react';
import { createCfworkerValidator } from '../lib/form-validator.ts';
import { isPlainObject } from '../lib/model.ts';
import { ArgumentsTable } from './ArgumentsTable.tsx';
import { plainId } from './hooks.ts';

const validator = createCfworkerValidator();

export function ApprovalEdit({
  schema,
  proposed,
  busy,
  send,
  onCancel,
}: {
  schema: Record<string, unknown>;
  proposed: Record<string, unknown>;
  busy: boolean;
  send(args: Record<string, unknown>): void;
  onCancel(): void;
}) {
  const idPrefix = plainId(useId());
  const [formData, setFormData] = useState<Record<string, unknown>>(() => structuredClone(proposed));
  const rjsfSchema = useMemo(() => structuredClone(schema) as RJSFSchema, [schema]);
  return (
    <div className="approval-edit">
      <Form
        schema={rjsfSchema}
        validator={validator}
        idPrefix={idPrefix}
        formData={formData}
        onChange={(e) => setFormData(isPlainObject(e.formData) ? e.formData : {})}
        onSubmit={(e) => send(isPlainObject(e.formData) ? e.formData : {})}
        onError={() => {}}
        showErrorList={false}
        noHtml5Validate
        focusOnFirstError
        disabled={busy}
      >
        {/* Children replace rjsf's own submit button. */}
        <div className="approval-changes">
          <p className="hint">The arguments you approve (changes highlighted):</p>
          <ArgumentsTable proposed={proposed} edited={formData} caption="The arguments with your changes" />
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Approve with these arguments
          </button>
          <button type="button" className="quiet" disabled={busy} onClick={onCancel}>
            Cancel editing
          </button>
        </div>
      </Form>
    </div>
  );
}
