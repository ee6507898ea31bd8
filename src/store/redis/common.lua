-- Shared by every script (prepended at load). ARGV[1] is always the key prefix.
-- Records are hashes: spec (the question JSON, written once), st (status), res (the
-- resolution JSON, written by the claim), plus small fields used for filtering.
local prefix = ARGV[1]

local function qkey(id)
  return prefix .. 'q:' .. id
end

-- Follow-ups of a resolving question: one outbox item per target, due now. Items are
-- hashes ob:<questionId>:<target> (q, t, a = attempt, d = dueAt, e = enqueuedAt, lt = lease
-- token while leased); the sorted set outbox orders them by when they are next due.
local function enqueue_follow_ups(id, q, now)
  local fu = redis.call('HGET', q, 'fu')
  if not fu then return end
  local ttl = redis.call('HGET', q, 'fttl')
  for target in string.gmatch(fu, '[^\n]+') do
    local item = id .. ':' .. target
    local k = prefix .. 'ob:' .. item
    if redis.call('EXISTS', k) == 0 then
      redis.call('HSET', k, 'q', id, 't', target, 'a', 0, 'd', now, 'e', now)
      redis.call('PEXPIRE', k, ttl)
      redis.call('ZADD', prefix .. 'outbox', now, item)
    end
  end
end

-- What pending questions hold: held:n and held:b are hashes askedBy -> count and media
-- bytes, held:total the media bytes of all. create adds (+1, mb); resolve takes it back.
local function held_by(by, n, mb)
  local left = redis.call('HINCRBY', prefix .. 'held:n', by, n)
  if left <= 0 then
    redis.call('HDEL', prefix .. 'held:n', by)
    redis.call('HDEL', prefix .. 'held:b', by)
  else
    redis.call('HINCRBY', prefix .. 'held:b', by, mb)
  end
  redis.call('INCRBY', prefix .. 'held:total', mb)
end

-- The one place a question leaves PENDING: status, indexes, TTLs, follow-ups, announcement.
local function resolve(id, status, res, now, retention)
  local q = qkey(id)
  local held = redis.call('HMGET', q, 'by', 'mb')
  held_by(held[1], -1, 0 - tonumber(held[2] or '0'))
  redis.call('HSET', q, 'st', status, 'res', res)
  redis.call('ZREM', prefix .. 'pending', id)
  redis.call('ZREM', prefix .. 'deadlines', id)
  redis.call('ZADD', prefix .. 'history', now, id)
  redis.call('PEXPIRE', q, retention)
  local tk = redis.call('HGET', q, 'tk')
  if tk then redis.call('PEXPIRE', prefix .. 'ticket:' .. tk, retention) end
  local ik = redis.call('HGET', q, 'ik')
  if ik then redis.call('PEXPIRE', prefix .. 'idem:' .. ik, retention) end
  enqueue_follow_ups(id, q, now)
  local spec = redis.call('HGET', q, 'spec')
  redis.call('PUBLISH', prefix .. 'events', '{"type":"' .. status .. '","spec":' .. spec .. ',"res":' .. res .. '}')
end

local function timed_out(now)
  return '{"status":"TIMED_OUT","answer":null,"answeredBy":null,"answeredAt":null,"closedAt":' .. now .. ',"cancelReason":null}'
end
