-- Shared by every script (prepended at load). ARGV[1] is always the key prefix.
-- Records are hashes: spec (the question JSON, written once), st (status), res (the
-- resolution JSON, written by the claim), plus small fields used for filtering.
local prefix = ARGV[1]

local function qkey(id)
  return prefix .. 'q:' .. id
end

-- The one place a question leaves PENDING: status, indexes, TTLs, announcement.
local function resolve(id, status, res, now, retention)
  local q = qkey(id)
  redis.call('HSET', q, 'st', status, 'res', res)
  redis.call('ZREM', prefix .. 'pending', id)
  redis.call('ZREM', prefix .. 'deadlines', id)
  redis.call('ZADD', prefix .. 'history', now, id)
  redis.call('PEXPIRE', q, retention)
  local tk = redis.call('HGET', q, 'tk')
  if tk then redis.call('PEXPIRE', prefix .. 'ticket:' .. tk, retention) end
  local ik = redis.call('HGET', q, 'ik')
  if ik then redis.call('PEXPIRE', prefix .. 'idem:' .. ik, retention) end
  local spec = redis.call('HGET', q, 'spec')
  redis.call('PUBLISH', prefix .. 'events', '{"type":"' .. status .. '","spec":' .. spec .. ',"res":' .. res .. '}')
end

local function timed_out(now)
  return '{"status":"TIMED_OUT","answer":null,"answeredBy":null,"answeredAt":null,"closedAt":' .. now .. ',"cancelReason":null}'
end
