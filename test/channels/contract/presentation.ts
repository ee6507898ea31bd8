// The contract's APPROVAL presentation check (API.md §23): what a channel's provider received
// for an approval is what the channel's presentation object says it shows — the name, the
// summary and the arguments, cut where the surface cuts them and nowhere else — and the digest
// the answer path records for an answer through that channel is the digest of that object.
import { expect } from 'vitest';
import { presentOn, surfaceOfPlugin } from '../../../src/domain/presentation.ts';
import { presentedDigestOf } from '../../../src/domain/presented-digest.ts';
import type { QuestionRecord } from '../../../src/domain/question.ts';
import { evidenceFor } from '../../../src/engine/answers/step-up.ts';
import type { Delivered } from './harness.ts';

/** Arguments too long for any channel, with no repeated run (so a cut is found where it is). */
export const LONG_ACTION = {
  name: 'payments.wire',
  summary: `Pay the supplier ${Array.from({ length: 50 }, (_, i) => `s${i}`).join(' ')}`,
  arguments: { memo: Array.from({ length: 1800 }, (_, i) => `w${i}`).join(' ') },
};

/** The plugin a harness's manifest lines name (`plugin: slack`). */
export function pluginOfLines(lines: readonly string[]): string | undefined {
  const line = lines.find((l) => l.trim().startsWith('plugin:'));
  return line?.slice(line.indexOf(':') + 1).trim();
}

export function checkPresentation(plugin: string | undefined, channel: string, d: Delivered): void {
  const surface = surfaceOfPlugin(plugin);
  const p = presentOn(surface, LONG_ACTION, LONG_ACTION.arguments);
  const all = d.strings.join('\n');
  if (surface === 'api') {
    // A plugin this build does not know is taken to show the action whole.
    expect(p.truncated).toBe(false);
  } else {
    expect(p.truncated, surface).toBe(true);
    expect(all).toContain(p.name);
    if (p.summary) expect(all).toContain(p.summary.replace(/…$/, ''));
    const whole = presentOn('api', LONG_ACTION, LONG_ACTION.arguments).argumentsText;
    const shown = p.argumentsText.replace(/…$/, '');
    if (shown.length > 0) {
      // The last words shown are in the message; the words right after the cut are not.
      const tail = shown.slice(-24).trim().split(' ').slice(1, -1).join(' ');
      expect(all, surface).toContain(tail);
      const next = whole.slice(shown.length).trim().split(' ').slice(1, 3).join(' ');
      expect(all, surface).not.toContain(next);
    } else {
      expect(all).not.toContain('w100 w101');
    }
  }
  const q = {
    id: 'q',
    format: 'APPROVAL',
    action: { ...LONG_ACTION, assurance: null },
  } as unknown as QuestionRecord;
  const ctx = {
    channels: { names: () => new Set([channel]), deliver: async () => null, pluginOf: () => plugin },
  };
  const checked = evidenceFor(
    { ...ctx, settings: { publicBaseUrl: null } as never },
    q,
    { id: `${channel}:u`, via: `channel:${channel}` },
    { decision: 'APPROVED' },
    undefined,
  );
  expect(checked).toEqual({ evidence: { presentedDigest: presentedDigestOf(p) } });
}
