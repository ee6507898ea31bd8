-- ARGV: prefix, itemId, leaseToken, dueAt ('' = done: remove the item). Only the holder of
-- the current lease settles an item: 1 when it did, 0 when the lease is not (or no longer)
-- this token's.
local item = ARGV[2]
local k = prefix .. 'ob:' .. item
if redis.call('HGET', k, 'lt') ~= ARGV[3] then return 0 end
if ARGV[4] == '' then
  redis.call('DEL', k)
  redis.call('ZREM', prefix .. 'outbox', item)
else
  redis.call('HINCRBY', k, 'a', 1)
  redis.call('HSET', k, 'd', ARGV[4])
  redis.call('HDEL', k, 'lt', 'lo')
  redis.call('ZADD', prefix .. 'outbox', ARGV[4], item)
end
return 1
