import { inject } from 'vitest';
import { openRedisStore } from '../support/fixtures.ts';
import { channelAnswerContract } from './channel-answer-contract.ts';
import { storeContract } from './contract.ts';
import { executionContract } from './execution-contract.ts';
import { listingContract } from './listing-contract.ts';
import { voteContract } from './vote-contract.ts';

storeContract('redis', async (o = {}) => openRedisStore(inject('redisUrl'), o));

listingContract('redis', async () => openRedisStore(inject('redisUrl')));

voteContract('redis', async () => openRedisStore(inject('redisUrl')));

channelAnswerContract('redis', async () => openRedisStore(inject('redisUrl')));

executionContract('redis', async () => openRedisStore(inject('redisUrl')));
