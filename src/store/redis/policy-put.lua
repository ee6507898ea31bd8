-- ARGV: prefix, id, rule (JSON), max rules, actor, detail (JSON), at (epoch ms)
-- Creates or replaces one store policy rule (API.md §20) with its POLICY_CHANGED entry; the
-- generation every instance polls advances. Returns the rule's new version, or 0 when full.
local rules, versions = prefix .. 'policy:rules', prefix .. 'policy:versions'
local id = ARGV[2]
if redis.call('HEXISTS', rules, id) == 0 and redis.call('HLEN', rules) >= tonumber(ARGV[4]) then return 0 end
local version = redis.call('HINCRBY', versions, id, 1)
local record = {rule = ARGV[3], by = ARGV[5], at = tonumber(ARGV[7])}
redis.call('HSET', rules, id, cjson.encode(record))
redis.call('INCR', prefix .. 'policy:gen')
local detail = cjson.decode(ARGV[6])
detail.version = tostring(version)
audit_append('POLICY_CHANGED', nil, ARGV[5], 'api', detail, ARGV[7])
return version
