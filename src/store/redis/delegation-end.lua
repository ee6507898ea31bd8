-- ARGV: prefix, from, actor, now (epoch ms)
-- Ends one person's delegation early (API.md §22) with its DELEGATION_ENDED entry, in one step.
-- Returns 1, or 0 when no delegation was live (an ended one is dropped, unaudited).
local recs, from, now = prefix .. 'deleg', ARGV[2], tonumber(ARGV[4])
local cur = redis.call('HGET', recs, from)
if not cur then return 0 end
local d = cjson.decode(cur)
redis.call('HDEL', recs, from)
redis.call('ZREM', prefix .. 'deleg:to:' .. d.to, from)
if tonumber(d['until']) <= now then return 0 end
audit_append('DELEGATION_ENDED', nil, ARGV[3], 'api', {to = d.to}, ARGV[4])
return 1
