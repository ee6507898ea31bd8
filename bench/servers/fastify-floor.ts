// The callback-door floor: the same HTTP stack (Fastify, JSON body parsing) answering a route
// that does one Redis GET and one SET on the run's private Redis, and nothing else.
import Fastify from 'fastify';
import { Redis } from 'ioredis';

const redis = new Redis(process.env.BENCH_REDIS_URL ?? '', { maxRetriesPerRequest: 3 });
const app = Fastify({ logger: false });

app.get('/health', async () => ({ status: 'ok' }));

app.post<{ Params: { key: string } }>('/answer/:key', async (req) => {
  const key = `bench-floor:${req.params.key}`;
  await redis.get(key);
  await redis.set(key, JSON.stringify(req.body), 'EX', 600);
  return { data: { status: 'answered' } };
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', async () => {
  await app.close();
  redis.disconnect();
  process.exit(0);
});
