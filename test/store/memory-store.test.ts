import { createMemoryStore } from '../../src/store/memory-store.ts';
import { storeContract } from './contract.ts';

storeContract('memory', async (o = {}) => {
  const store = createMemoryStore(o);
  return { store, close: () => store.close() };
});
