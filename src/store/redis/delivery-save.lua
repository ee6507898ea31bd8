-- ARGV: prefix, id, delivery (JSON; 'null' = delivery failed), ref, recipient ('' = none),
--       recipientIndexDepth, deliveredAt (epoch ms; '' = not told), now (epoch ms, the audit
--       entry's at), place ('' = the question's own channel; else the channel a REROUTE step
--       delivered to)
-- The delivery and its indexes in one step; index keys live as long as the question does. Its
-- audit entry too: DELIVERED, or DELIVERY_FAILED for the null delivery. Another place's delivery
-- is kept beside the first, in rc:<channel> and rd:<channel>.
local q = qkey(ARGV[2])
local cur = redis.call('HMGET', q, 'chan', 'ca')
local chan = cur[1]
local rc, rd = 'rc', 'rd'
if ARGV[9] ~= '' and ARGV[9] ~= chan then
  if not cur[2] then return 0 end
  chan, rc, rd = ARGV[9], 'rc:' .. ARGV[9], 'rd:' .. ARGV[9]
end
if not chan or chan == '' then return 0 end
local ttl = redis.call('PTTL', q)
if ttl <= 0 then return 0 end
redis.call('HSET', q, rc, ARGV[3])
local delivered = 'DELIVERED'
if ARGV[3] == 'null' then delivered = 'DELIVERY_FAILED' end
audit_append(delivered, ARGV[2], nil, 'channel:' .. chan, {channel = chan}, ARGV[8])
if ARGV[7] ~= '' then redis.call('HSET', q, rd, ARGV[7]) end
if ARGV[4] ~= '' then
  redis.call('SET', prefix .. 'chref:' .. chan .. ':' .. ARGV[4], ARGV[2], 'PX', ttl)
end
if ARGV[5] ~= '' then
  local k = prefix .. 'chto:' .. chan .. ':' .. ARGV[5]
  redis.call('ZADD', k, cur[2], ARGV[2])
  -- Keep the newest few only; the set lives as long as its longest-lived question.
  redis.call('ZREMRANGEBYRANK', k, 0, -(tonumber(ARGV[6]) + 1))
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
return 1
