-- ARGV: prefix, itemId, leaseToken, how, dueAt, reason, now, retentionMs, maxDead.
-- Only the holder of the current lease settles an item: 1 when it did, 0 when the lease is
-- not (or no longer) this token's. how is one of:
--   ack    done: the item is removed;
--   retry  due again at dueAt as the next attempt (attempt + 1);
--   defer  due again at dueAt, the attempt not counted (nothing was tried);
--   drop   removed, and a dead letter kept until now + retentionMs: the hash obdead:rec maps the
--          item id to [id, questionId, target, attempts, reason, enqueuedAt, droppedAt] (JSON),
--          the sorted set obdead orders the ids by expiry; at most maxDead are kept.
local item, token, how = ARGV[2], ARGV[3], ARGV[4]
local dueAt = ARGV[5]
local k = prefix .. 'ob:' .. item
local index = prefix .. 'outbox'
if redis.call('HGET', k, 'lt') ~= token then return 0 end
if how == 'retry' or how == 'defer' then
  if how == 'retry' then redis.call('HINCRBY', k, 'a', 1) end
  redis.call('HSET', k, 'd', dueAt)
  redis.call('HDEL', k, 'lt', 'lo')
  redis.call('ZADD', index, dueAt, item)
  return 1
end
if how == 'drop' then
  local reason, now, retention, maxDead = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
  local f = redis.call('HMGET', k, 'q', 't', 'a', 'e')
  local dead, rec = prefix .. 'obdead', prefix .. 'obdead:rec'
  redis.call('HSET', rec, item, cjson.encode({item, f[1], f[2], tonumber(f[3]) + 1, reason, f[4], ARGV[7]}))
  redis.call('ZADD', dead, now + retention, item)
  local over = redis.call('ZCARD', dead) - maxDead
  if over > 0 then
    local old = redis.call('ZRANGE', dead, 0, over - 1)
    redis.call('HDEL', rec, unpack(old))
    redis.call('ZREMRANGEBYRANK', dead, 0, over - 1)
  end
end
redis.call('DEL', k)
redis.call('ZREM', index, item)
return 1
