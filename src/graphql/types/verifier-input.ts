// VerifierInput: binds an EXTERNAL question to a webhook verifier (API.md §8).
import { builder } from '../builder.ts';
import { JSONObjectScalar } from '../scalars.ts';

export const VerifierInput = builder.inputType('VerifierInput', {
  description: 'A registered webhook verifier that checks the signature of every callback.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'The verifier’s name, e.g. hmac-sha256, stripe or github.',
    }),
    config: t.field({
      type: JSONObjectScalar,
      description:
        'The verifier’s settings. Names environment variables that hold secrets (e.g. {"secretEnv": "STRIPE_WEBHOOK_SECRET"}), never secrets.',
    }),
  }),
});
