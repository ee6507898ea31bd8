// What the evidence bundle's `controls.json` says (API.md §24): for each kind of record in the
// bundle, the obligations it is evidence for. EU AI Act (Regulation (EU) 2024/1689): Art. 12
// record-keeping (automatic logs of events), Art. 14(4) human oversight (a person can
// understand, decide, override or stop), Art. 26(6) deployers keep the logs at least six
// months. SOC 2 (AICPA Trust Services Criteria 2017): CC6 logical access, CC7 system operations
// (monitoring, incidents), CC8 change management. A mapping is a claim an auditor weighs, not a
// certification: each names why the record supports the control.

export const CONTROLS = {
  'EU-AI-Act-Art-12': 'EU AI Act Art. 12: automatic recording of events (logs) over the system’s lifetime',
  'EU-AI-Act-Art-14(4)':
    'EU AI Act Art. 14(4): natural persons oversee the system: they can decide not to use, override or reverse its output, and interrupt it',
  'EU-AI-Act-Art-26(6)':
    'EU AI Act Art. 26(6): deployers keep the automatically generated logs for at least six months',
  'SOC2-CC6': 'SOC 2 CC6: logical and physical access controls',
  'SOC2-CC7': 'SOC 2 CC7: system operations: detecting and responding to anomalies and incidents',
  'SOC2-CC8': 'SOC 2 CC8: change management: changes are authorized before they are made',
} as const;

export type ControlId = keyof typeof CONTROLS;

export interface ControlMapping {
  /** `audit:<entry type>`, or a file of the bundle. */
  kind: string;
  /** The bundle file holding these records. */
  file: string;
  supports: ControlId[];
  why: string;
}

const LOG: ControlId = 'EU-AI-Act-Art-12';
const OVERSIGHT: ControlId = 'EU-AI-Act-Art-14(4)';
const RETENTION: ControlId = 'EU-AI-Act-Art-26(6)';

const audit = (type: string, supports: ControlId[], why: string): ControlMapping => ({
  kind: `audit:${type}`,
  file: 'audit.jsonl',
  supports: [LOG, RETENTION, ...supports],
  why,
});

export const CONTROL_MAPPINGS: readonly ControlMapping[] = [
  audit('ASKED', [OVERSIGHT], 'an agent put a decision to people instead of acting alone'),
  audit('DELIVERED', [OVERSIGHT], 'the question reached the people who oversee the action'),
  audit('DELIVERY_FAILED', ['SOC2-CC7'], 'a failed delivery is an operational anomaly, recorded'),
  audit('REMINDED', [OVERSIGHT, 'SOC2-CC7'], 'an unanswered question was followed up'),
  audit('ESCALATED', [OVERSIGHT, 'SOC2-CC7'], 'an unanswered question went to someone else'),
  audit('VOTED', [OVERSIGHT, 'SOC2-CC8'], 'a person’s vote towards a quorum'),
  audit('ANSWERED', [OVERSIGHT, 'SOC2-CC8'], 'a person decided: approved, rejected or edited the action'),
  audit('TIMED_OUT', [OVERSIGHT, 'SOC2-CC7'], 'nobody decided in time: the action was not approved'),
  audit('CANCELLED', [OVERSIGHT], 'the wait was stopped (interrupted) by its asker or an operator'),
  audit('CALLBACK_REFUSED', ['SOC2-CC6', 'SOC2-CC7'], 'a forged or misdirected answer was refused'),
  audit('DECIDED_BY_POLICY', [OVERSIGHT, 'SOC2-CC8'], 'a rule people wrote decided, named with its version'),
  audit('POLICY_CHANGED', ['SOC2-CC8'], 'who changed which decision rule, and when'),
  audit('GRANT_GIVEN', [OVERSIGHT, 'SOC2-CC6'], 'a person allowed the same action again, bounded in time'),
  audit('GRANT_USED', [OVERSIGHT, 'SOC2-CC6'], 'a question decided by a person’s earlier grant'),
  audit('GRANT_REVOKED', [OVERSIGHT, 'SOC2-CC6'], 'a person withdrew a grant'),
  audit('DELEGATION_SET', ['SOC2-CC6'], 'a person handed their questions to another'),
  audit('DELEGATION_ENDED', ['SOC2-CC6'], 'a delegation ended'),
  audit('CLAIMED', [OVERSIGHT], 'a person took up a pending question'),
  audit('UNCLAIMED', [OVERSIGHT], 'a person let go of a question, or an operator freed it'),
  audit('NOTIFICATION_PREFS_CHANGED', ['SOC2-CC7'], 'when a person chose not to be notified at once'),
  audit('CHANNEL_LINKED', ['SOC2-CC6'], 'a channel recipient confirmed, from that channel, as a person’s'),
  audit('CHANNEL_UNLINKED', ['SOC2-CC6'], 'a person unlinked a channel recipient'),
  audit('CONSUMED', ['SOC2-CC8'], 'an approval was used once, by its asker or a named executor'),
  audit('EXECUTED', ['SOC2-CC8'], 'what the approved action did'),
  audit('PASSKEY_REGISTERED', ['SOC2-CC6'], 'a person registered a passkey for step-up'),
  {
    kind: 'audit-export-head',
    file: 'audit.jsonl',
    supports: [LOG, RETENTION],
    why: 'the signed head: the export is complete and unaltered back to its first entry',
  },
  {
    kind: 'receipt',
    file: 'receipts.jsonl',
    supports: [OVERSIGHT, 'SOC2-CC8'],
    why: 'a signed statement of who decided exactly which action with which arguments (pruned: the question is past its retention; its audit entries remain)',
  },
  {
    kind: 'jwks',
    file: 'jwks.json',
    supports: [LOG],
    why: 'the server’s public keys as it published them (verify against keys obtained separately)',
  },
  {
    kind: 'policy-rules',
    file: 'policies.json',
    supports: [OVERSIGHT, 'SOC2-CC8'],
    why: 'the decision rules in force, with their versions, which DECIDED_BY_POLICY entries name',
  },
];

export function controlsDocument(): Record<string, unknown> {
  return { typ: 'evidence-controls', controls: CONTROLS, records: CONTROL_MAPPINGS };
}
