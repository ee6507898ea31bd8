// Escalation ladders (API.md §18): the steps an ask carries and what each fired step recorded.
import type { EscalationView } from '../../engine/types.ts';
import { builder } from '../builder.ts';
import { DateTime } from '../scalars.ts';

export const EscalationAction = builder.enumType('EscalationAction', {
  description: 'What an escalation step does when it fires.',
  values: {
    REMIND: { description: 'Remind every place the question was delivered to.' },
    REROUTE: { description: 'Deliver the question to another channel and recipient as well.' },
  } as const,
});

export const EscalationStepInput = builder.inputType('EscalationStepInput', {
  description:
    'One step of an escalation ladder: at most 10 steps, each at least 10 s after the ask, strictly increasing, before the timeout.',
  fields: (t) => ({
    afterSeconds: t.int({
      required: true,
      description:
        'Seconds after the question was asked: at least 10, more than the step before, before timeoutAt.',
    }),
    action: t.field({ type: EscalationAction, required: true, description: 'What the step does.' }),
    channel: t.string({ description: 'REROUTE: a configured channel that delivers the question as well.' }),
    recipient: t.string({
      description: 'REROUTE: who that channel delivers to (its defaultRecipient when omitted).',
    }),
  }),
});

export const EscalationStep = builder.objectRef<EscalationView>('EscalationStep').implement({
  description: 'One step of a question’s escalation ladder, and what it did once it fired.',
  fields: (t) => ({
    afterSeconds: t.exposeInt('afterSeconds', { description: 'Seconds after the ask when it fires.' }),
    action: t.expose('action', { type: EscalationAction, description: 'What the step does.' }),
    channel: t.exposeString('channel', {
      nullable: true,
      description: 'REROUTE: the channel it delivers to.',
    }),
    recipient: t.exposeString('recipient', {
      nullable: true,
      description: 'REROUTE: the recipient on that channel.',
    }),
    firedAt: t.field({
      type: DateTime,
      nullable: true,
      description: 'When it fired; null while it has not (or never will: the question was resolved first).',
      resolve: (s) => s.firedAt,
    }),
    outcome: t.exposeString('outcome', {
      nullable: true,
      description: '`DELIVERED`, or `FAILED: <why>`; null while it has not fired.',
    }),
    routedTo: t.string({
      nullable: true,
      description: 'An `oncall:<group>` question: who was on duty when the step fired; null otherwise.',
      resolve: (s) => s.routedTo ?? null,
    }),
  }),
});
