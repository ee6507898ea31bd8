-- ARGV: prefix, cutoff, limit. Drops the history and every listing entry of up to limit
-- questions closed before the cutoff (their records expire by TTL at the same time, so what
-- they were indexed under is read from ixof). Returns how many.
local ids = redis.call('ZRANGEBYSCORE', prefix .. 'history', '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZREM', prefix .. 'history', id)
  unindex(id)
end
return #ids
