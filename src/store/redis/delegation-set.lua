-- ARGV: prefix, from, delegation (JSON), to, until (epoch ms), at (epoch ms), detail (JSON)
-- Sets or replaces one person's delegation (API.md §22) with its DELEGATION_SET entry, in one
-- step: the record under `deleg`, the person moved from the old delegate's index to the new one's
-- (a sorted set by end time, whose ended members are dropped as it is written).
local recs, from, to, at = prefix .. 'deleg', ARGV[2], ARGV[4], ARGV[6]
local old = redis.call('HGET', recs, from)
if old then
  local o = cjson.decode(old)
  redis.call('ZREM', prefix .. 'deleg:to:' .. o.to, from)
end
redis.call('HSET', recs, from, ARGV[3])
local idx = prefix .. 'deleg:to:' .. to
redis.call('ZREMRANGEBYSCORE', idx, '-inf', at)
redis.call('ZADD', idx, ARGV[5], from)
audit_append('DELEGATION_SET', nil, from, 'api', cjson.decode(ARGV[7]), at)
return 1
