-- ARGV: prefix, ticketHash, now, retentionMs, resolution ('' = look up only), counterKey ('' =
-- none), windowMs, max, auditDetail (JSON: the answer's audit facts). The callback door in one round trip. First the client's rate-limit
-- counter when asked (a fixed window: INCR, expiry set by the first hit), and over its max
-- nothing else happens. Then the question a live ticket names and, when a resolution is given
-- and it is a plain EXTERNAL question (no schema, no verifier, not sensitive: the caller has
-- already checked the answer as far as such a question asks) still pending, its claim through
-- the one resolve(). Any other question is returned untouched for the caller's full path.
-- Replies start {kind, count, ttl}; 'other' adds spec, status, resolution; 'lost' the status.
-- Mirrors isPlainExternal (src/domain/callback-payload.ts) and claim.lua's deadline rule.
local now, retention, resolution = ARGV[3], ARGV[4], ARGV[5]
local count, ttl = 0, 0
if ARGV[6] ~= '' then
  local k = prefix .. ARGV[6]
  count = redis.call('INCR', k)
  redis.call('PEXPIRE', k, ARGV[7], 'NX')
  ttl = redis.call('PTTL', k)
  if count > tonumber(ARGV[8]) then return {'limited', count, ttl} end
end

local id = redis.call('GET', prefix .. 'ticket:' .. ARGV[2])
if not id then return {'missing', count, ttl} end
local cur = redis.call('HMGET', qkey(id), 'spec', 'st', 'res', 'to')
if not cur[1] then return {'missing', count, ttl} end
if resolution == '' then return {'other', count, ttl, cur[1], cur[2], cur[3]} end

local ok, spec = pcall(cjson.decode, cur[1])
if not ok or type(spec) ~= 'table' or spec.format ~= 'EXTERNAL' or spec.schema ~= cjson.null
    or spec.verifier ~= cjson.null or spec.sensitive ~= false then
  return {'other', count, ttl, cur[1], cur[2], cur[3]}
end
if cur[2] ~= 'PENDING' then return {'lost', count, ttl, cur[2]} end

if tonumber(now) >= tonumber(cur[4]) then
  resolve(id, 'TIMED_OUT', timed_out(now), now, retention)
  return {'lost', count, ttl, 'TIMED_OUT'}
end
resolve(id, 'ANSWERED', resolution, now, retention, {actor = 'callback', detail = cjson.decode(ARGV[9])})
return {'won', count, ttl}
