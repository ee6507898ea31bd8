// The store runs on a single Redis (standalone or behind Sentinel) or on a Redis Cluster: the
// commands it uses exist on both ioredis clients.
import type { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;
