import { createMemoryStore } from '../../src/store/memory-store.ts';
import { storeContract } from './contract.ts';

storeContract('memory', async () => {
  const store = createMemoryStore();
  return { store, close: () => store.close() };
});
