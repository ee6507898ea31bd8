-- ARGV: prefix, cutoff. Drops history and listing entries of questions closed before the
-- cutoff (their records have expired by TTL at the same time).
local ids = redis.call('ZRANGEBYSCORE', prefix .. 'history', '-inf', ARGV[2], 'LIMIT', 0, 1000)
for _, id in ipairs(ids) do
  redis.call('ZREM', prefix .. 'history', id)
  redis.call('ZREM', prefix .. 'all', id)
end
return #ids
