import { createMemoryStore } from '../../src/store/memory-store.ts';
import { channelAnswerContract } from './channel-answer-contract.ts';
import { storeContract } from './contract.ts';
import { executionContract } from './execution-contract.ts';
import { listingContract } from './listing-contract.ts';
import { voteContract } from './vote-contract.ts';

storeContract('memory', async (o = {}) => {
  const store = createMemoryStore(o);
  return { store, close: () => store.close() };
});

listingContract('memory', async () => {
  const store = createMemoryStore();
  return { store, close: () => store.close() };
});

voteContract('memory', async () => {
  const store = createMemoryStore();
  return { store, close: () => store.close() };
});

channelAnswerContract('memory', async () => {
  const store = createMemoryStore();
  return { store, close: () => store.close() };
});

executionContract('memory', async () => {
  const store = createMemoryStore();
  return { store, close: () => store.close() };
});
