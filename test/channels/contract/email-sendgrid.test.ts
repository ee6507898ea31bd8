// The channel contract for `email` with replies by mail through Sendgrid's inbound webhook.
import { emailHarness } from './email-harness.ts';
import { runChannelContract } from './suite.ts';

runChannelContract(emailHarness('sendgrid'));
