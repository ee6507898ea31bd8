-- ARGV: prefix, ticketHash, now, retentionMs, resolution. The callback door's common case in one
-- round trip: the question a live ticket names and, when it is a plain EXTERNAL question (no
-- schema, no verifier, not sensitive: the caller has already checked the answer as far as such a
-- question asks) and still pending, its claim through the one resolve(). Any other question is
-- returned untouched, {'other', spec, status, resolution}, for the caller's full path.
-- Mirrors isPlainExternal (src/domain/callback-payload.ts) and claim.lua's deadline rule.
local now, retention = ARGV[3], ARGV[4]
local id = redis.call('GET', prefix .. 'ticket:' .. ARGV[2])
if not id then return {'missing'} end
local cur = redis.call('HMGET', qkey(id), 'spec', 'st', 'res', 'to')
if not cur[1] then return {'missing'} end

local ok, spec = pcall(cjson.decode, cur[1])
if not ok or type(spec) ~= 'table' or spec.format ~= 'EXTERNAL' or spec.schema ~= cjson.null
    or spec.verifier ~= cjson.null or spec.sensitive ~= false then
  return {'other', cur[1], cur[2], cur[3]}
end
if cur[2] ~= 'PENDING' then return {'lost', cur[2]} end

if tonumber(now) >= tonumber(cur[4]) then
  resolve(id, 'TIMED_OUT', timed_out(now), now, retention)
  return {'lost', 'TIMED_OUT'}
end
resolve(id, 'ANSWERED', ARGV[5], now, retention)
return {'won'}
