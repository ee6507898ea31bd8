// The channel contract for `email` with replies by mail through Postmark's inbound webhook.
import { emailHarness } from './email-harness.ts';
import { runChannelContract } from './suite.ts';

runChannelContract(emailHarness('postmark'));
