import { inject } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { openRedisStore } from '../support/fixtures.ts';
import { auditContract } from './audit-contract.ts';

auditContract('memory', async () => {
  const store = createMemoryStore();
  return { store, close: () => store.close() };
});

auditContract('redis', async () => openRedisStore(inject('redisUrl')));
