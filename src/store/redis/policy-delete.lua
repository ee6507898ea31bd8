-- ARGV: prefix, id, actor, detail (JSON), at (epoch ms)
-- Deletes one store policy rule (API.md §20) with its POLICY_CHANGED entry. Returns 1, or 0
-- when there was no such rule (nothing written).
local id = ARGV[2]
if redis.call('HDEL', prefix .. 'policy:rules', id) == 0 then return 0 end
redis.call('INCR', prefix .. 'policy:gen')
audit_append('POLICY_CHANGED', nil, ARGV[3], 'api', cjson.decode(ARGV[4]), ARGV[5])
return 1
