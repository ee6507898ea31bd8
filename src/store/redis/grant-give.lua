-- ARGV: prefix, id, grant (JSON), giver, max active grants, now (epoch ms), expiresAt (epoch ms),
--       questionId, via, detail (JSON)
-- Keeps one grant (API.md §20) with its GRANT_GIVEN entry, unless its giver already has `max`
-- active ones. Expired grants (a few due ones of anyone, and every one of this giver's) are
-- dropped first, so nothing outlives its time for long. Returns 1, or 0 at the limit.
local id, giver, max, now = ARGV[2], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local all, uses, exp = prefix .. 'grant:all', prefix .. 'grant:uses', prefix .. 'grant:exp'
local function by(person) return prefix .. 'grant:by:' .. person end

local function drop(gid)
  local raw = redis.call('HGET', all, gid)
  if raw then redis.call('SREM', by(cjson.decode(raw).createdBy), gid) end
  redis.call('HDEL', all, gid)
  redis.call('HDEL', uses, gid)
  redis.call('ZREM', exp, gid)
end

for _, gid in ipairs(redis.call('ZRANGEBYSCORE', exp, '-inf', now, 'LIMIT', 0, 20)) do drop(gid) end
for _, gid in ipairs(redis.call('SMEMBERS', by(giver))) do
  local raw = redis.call('HGET', all, gid)
  if not raw then
    redis.call('SREM', by(giver), gid)
  elseif tonumber(cjson.decode(raw).expiresAt) <= now then
    drop(gid)
  end
end
if redis.call('SCARD', by(giver)) >= max then return 0 end
redis.call('HSET', all, id, ARGV[3])
redis.call('SADD', by(giver), id)
redis.call('ZADD', exp, ARGV[7], id)
redis.call('INCR', prefix .. 'grant:gen')
audit_append('GRANT_GIVEN', ARGV[8], giver, ARGV[9], cjson.decode(ARGV[10]), ARGV[6])
return 1
