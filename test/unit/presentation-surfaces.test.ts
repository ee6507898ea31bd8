// The whole-action surfaces — the callback page, MCP elicitation and the CLI's `show` — render an
// APPROVAL from the same presentation object whose digest the answer records as presentedDigest
// (API.md §23): what each shows is the presentation's name, summary and arguments, character for
// character, so the digest is of what was shown.
import { describe, expect, it } from 'vitest';
import { questionDetail } from '../../src/cli/format.ts';
import type { Question } from '../../src/client/index.ts';
import { presentationLines, presentOn } from '../../src/domain/presentation.ts';
import { approvalPage } from '../../src/http/callback-pages.ts';
import { elicitParamsOf } from '../../src/mcp/elicitation.ts';

const ACTION = {
  name: 'payments.refund',
  summary: 'Refund 100 EUR to <order> 42 & notify',
  arguments: { order: 'A-42', amount: 100, notify: true },
};

describe('the whole-action surfaces show the one presentation', () => {
  it('the callback page shows its name, summary and each argument (escaped)', () => {
    const shown = presentOn('callback', ACTION, ACTION.arguments);
    const html = approvalPage({ ...ACTION, editable: false } as never);
    expect(html).toContain(`<strong>${shown.name}</strong>`);
    expect(html).toContain('Refund 100 EUR to &#60;order&#62; 42 &#38; notify');
    for (const [k, v] of Object.entries(shown.arguments as Record<string, unknown>)) {
      expect(html).toContain(
        `<th scope="row">${k}</th><td><pre>${typeof v === 'string' ? v : JSON.stringify(v)}</pre>`,
      );
    }
  });

  it('MCP elicitation writes exactly the presentation’s lines', () => {
    const { message } = elicitParamsOf({ text: 'May I?', format: 'APPROVAL', action: ACTION });
    const lines = presentationLines(presentOn('mcp', ACTION, ACTION.arguments));
    expect(lines[0]).toBe('Action: payments.refund');
    expect(message).toBe(['May I?', '', ...lines].join('\n'));
  });

  it('the CLI’s show names the presented action and summary and each argument', () => {
    const q = {
      id: 'q1',
      text: 'May I?',
      format: 'APPROVAL',
      status: 'PENDING',
      action: { ...ACTION, editable: false },
      edited: false,
    } as unknown as Question;
    const shown = presentOn('cli', ACTION, ACTION.arguments);
    const out = questionDetail(q);
    expect(out).toMatch(new RegExp(`Action\\s+${shown.name.replace('.', '\\.')}`));
    expect(out).toContain(shown.summary!);
    expect(out).toMatch(/ {2}amount\s+100/);
  });
});
