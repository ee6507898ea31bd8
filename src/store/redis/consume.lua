-- ARGV: prefix, id, by, now, execution (JSON {consumedAt, consumedBy}), auditDetail (JSON)
-- An approval used once (API.md §23), in one step: the record ANSWERED and not yet used, the
-- execution spliced into res (Lua only moves the resolution's bytes: cjson would mangle them),
-- the resolution as it was kept in r0 for the report, and the CONSUMED entry.
local id, by, now, execution = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local q = qkey(id)
local cur = redis.call('HMGET', q, 'spec', 'st', 'res', 'chan')
if not cur[1] then return {'missing'} end
if cur[2] ~= 'ANSWERED' then return {'closed', cur[1], cur[2], cur[3]} end
if redis.call('HSETNX', q, 'xc', execution) == 0 then return {'used', cur[1], cur[2], cur[3]} end
local res = string.sub(cur[3], 1, -2) .. ',"execution":' .. execution .. '}'
redis.call('HSET', q, 'r0', cur[3], 'res', res)
audit_append('CONSUMED', id, by, audit_via(by, cur[4]), cjson.decode(ARGV[6]), now)
return {'consumed', cur[1], cur[2], res}
