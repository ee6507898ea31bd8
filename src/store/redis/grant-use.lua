-- ARGV: prefix, grant id, questionId, now (epoch ms)
-- Counts one use of a grant (API.md §20) for the question it decides, with its GRANT_USED entry:
-- only while it is kept (not revoked), not expired and under maxUses, so concurrent asks on any
-- number of instances use it at most maxUses times. The last allowed use removes it.
-- Returns 1 when used, 0 when gone (nothing written).
local id, now = ARGV[2], tonumber(ARGV[4])
local all, uses = prefix .. 'grant:all', prefix .. 'grant:uses'
local raw = redis.call('HGET', all, id)
if not raw then return 0 end
local g = cjson.decode(raw)
if tonumber(g.expiresAt) <= now then return 0 end
local max = g.maxUses
if max == cjson.null then max = nil end
local used = tonumber(redis.call('HGET', uses, id) or '0')
if max and used >= max then return 0 end
used = redis.call('HINCRBY', uses, id, 1)
audit_append('GRANT_USED', ARGV[3], 'policy:' .. id, 'policy',
  {grantId = id, use = used, maxUses = max or cjson.null, createdBy = g.createdBy}, ARGV[4])
if max and used >= max then
  redis.call('HDEL', all, id)
  redis.call('HDEL', uses, id)
  redis.call('SREM', prefix .. 'grant:by:' .. g.createdBy, id)
  redis.call('ZREM', prefix .. 'grant:exp', id)
  redis.call('INCR', prefix .. 'grant:gen')
end
return 1
