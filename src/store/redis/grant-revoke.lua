-- ARGV: prefix, grant id, actor, now (epoch ms)
-- Ends a grant (API.md §20) with its GRANT_REVOKED entry: from this step on no use succeeds on
-- any instance. Returns 1, or 0 when there was no such grant (nothing written).
local id = ARGV[2]
local all = prefix .. 'grant:all'
local raw = redis.call('HGET', all, id)
if not raw then return 0 end
local g = cjson.decode(raw)
redis.call('HDEL', all, id)
redis.call('HDEL', prefix .. 'grant:uses', id)
redis.call('SREM', prefix .. 'grant:by:' .. g.createdBy, id)
redis.call('ZREM', prefix .. 'grant:exp', id)
redis.call('INCR', prefix .. 'grant:gen')
audit_append('GRANT_REVOKED', nil, ARGV[3], 'api', {grantId = id, createdBy = g.createdBy}, ARGV[4])
return 1
