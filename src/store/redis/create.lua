-- ARGV: prefix, id, spec, createdAt, timeoutAt, ttlMs, maxPending, audience, groupId,
--       channel, askedBy, ticketHash, idempotencySlot, preparedId, followUps (targets
--       joined by newlines), outboxTtlMs  ('' = none), maxPendingPerPrincipal,
--       maxMediaBytesPerPrincipal, maxMediaBytes ('' = no cap), mediaBytes, format,
--       maxOutbox ('' = no cap), askedDetail (the ASKED audit entry's detail, JSON),
--       escalation due times (epoch ms in step order, joined by commas; '' = no ladder),
--       askFollowUps (targets enqueued at once, joined by newlines)
local id, spec = ARGV[2], ARGV[3]
local followUps, maxOutbox = ARGV[15], ARGV[22]
local idem, prepared = ARGV[13], ARGV[14]

if idem ~= '' then
  local existing = redis.call('GET', prefix .. 'idem:' .. idem)
  if existing then
    local cur = redis.call('HMGET', qkey(existing), 'spec', 'st', 'res')
    if cur[1] then return {'existing', cur[1], cur[2], cur[3]} end
  end
end

local tk = ARGV[12]
if prepared ~= '' then
  tk = redis.call('GET', prefix .. 'prep:' .. prepared)
  if not tk then return {'no-reservation'} end
end

-- The caps, in order; the first one passed refuses (see held_by for the usage keys).
local by, mb = ARGV[11], tonumber(ARGV[20])
local function over(cur, add, cap)
  return cap ~= '' and tonumber(cur or 0) + add > tonumber(cap)
end
if over(redis.call('ZCARD', prefix .. 'pending'), 1, ARGV[7]) then return {'limit', 'pending'} end
-- The asker's live prepareExternal reservations count too (reserve.lua); the one consumed here
-- becomes this question. Read-only: reserve drops the expired ones.
local function reserved()
  local mine = prefix .. 'prepby:' .. by
  local n = redis.call('ZCOUNT', mine, '(' .. ARGV[4], '+inf')
  if prepared ~= '' and n > 0 then
    local exp = redis.call('ZSCORE', mine, prepared)
    if exp and tonumber(exp) > tonumber(ARGV[4]) then n = n - 1 end
  end
  return n
end
if ARGV[17] ~= '' and over(tonumber(redis.call('HGET', prefix .. 'held:n', by) or '0') + reserved(), 1, ARGV[17]) then
  return {'limit', 'pendingPerPrincipal'}
end
if over(redis.call('HGET', prefix .. 'held:b', by), mb, ARGV[18]) then
  return {'limit', 'mediaBytesPerPrincipal'}
end
if over(redis.call('GET', prefix .. 'held:total'), mb, ARGV[19]) then return {'limit', 'mediaBytes'} end
-- At the cap a question that would add follow-ups waits; resolutions always enqueue theirs.
if followUps ~= '' and over(redis.call('ZCARD', prefix .. 'outbox'), 1, maxOutbox) then
  return {'limit', 'outbox'}
end

if prepared ~= '' then
  redis.call('DEL', prefix .. 'prep:' .. prepared)
  redis.call('ZREM', prefix .. 'prepby:' .. by, prepared)
end
local q = qkey(id)
redis.call('HSET', q, 'spec', spec, 'st', 'PENDING', 'ca', ARGV[4], 'to', ARGV[5], 'fmt', ARGV[21],
  'aud', ARGV[8], 'grp', ARGV[9], 'chan', ARGV[10], 'by', ARGV[11])
if tk ~= '' then
  redis.call('HSET', q, 'tk', tk)
  redis.call('SET', prefix .. 'ticket:' .. tk, id, 'PX', ARGV[6])
end
if idem ~= '' then
  redis.call('HSET', q, 'ik', idem)
  redis.call('SET', prefix .. 'idem:' .. idem, id, 'PX', ARGV[6])
end
redis.call('HSET', q, 'mb', mb)
held_by(by, 1, mb)
if followUps ~= '' then redis.call('HSET', q, 'fu', followUps, 'fttl', ARGV[16]) end
redis.call('PEXPIRE', q, ARGV[6])
index_add(id, 'PENDING', ARGV[4], {ARGV[8], ARGV[9], ARGV[10], ARGV[11]}, mb)
redis.call('ZADD', prefix .. 'deadlines', ARGV[5], id)
if ARGV[24] ~= '' then
  local i = 0
  for due in string.gmatch(ARGV[24], '[^,]+') do
    redis.call('ZADD', prefix .. 'escalations', due, id .. '#' .. i)
    i = i + 1
  end
  redis.call('HSET', q, 'en', i)
end
redis.call('ZADD', prefix .. 'all', ARGV[4], id)
-- Follow-ups due at once (pushes of the new question), unless the outbox is at its cap.
if ARGV[25] ~= '' and not over(redis.call('ZCARD', prefix .. 'outbox'), 1, maxOutbox) then
  enqueue_follow_ups(id, ARGV[25], ARGV[16], tonumber(ARGV[4]))
end
redis.call('PUBLISH', prefix .. 'events', '{"type":"ASKED","spec":' .. spec .. ',"res":null}')
audit_append('ASKED', id, ARGV[11], 'api', cjson.decode(ARGV[23]), ARGV[4])
return {'created'}
