// The channel contract for `email` answered through its links (no replies by mail configured).
import { emailHarness } from './email-harness.ts';
import { runChannelContract } from './suite.ts';

runChannelContract(emailHarness());
