-- A prepareExternal reservation, counted against its owner's pending cap in the same step.
-- ARGV: prefix, reservation key, owner, ticketHash, expiresAt, now, maxPendingPerPrincipal ('' = no cap)
-- prepby:<owner> is a sorted set of the owner's reservation keys scored by expiresAt: the
-- expired ones are dropped here, and create counts the live ones.
local rk, by, exp, now = ARGV[2], ARGV[3], tonumber(ARGV[5]), ARGV[6]
local mine = prefix .. 'prepby:' .. by
redis.call('ZREMRANGEBYSCORE', mine, '-inf', now)
if ARGV[7] ~= '' then
  local held = tonumber(redis.call('HGET', prefix .. 'held:n', by) or '0')
  if held + redis.call('ZCARD', mine) + 1 > tonumber(ARGV[7]) then return 'limit' end
end
redis.call('SET', prefix .. 'prep:' .. rk, ARGV[4], 'PXAT', exp)
redis.call('ZADD', mine, exp, rk)
-- The set lives as long as its longest reservation (PEXPIRETIME is -1 while it has none).
if redis.call('PEXPIRETIME', mine) < exp then redis.call('PEXPIREAT', mine, exp) end
return 'reserved'
