-- ARGV[2]: the spec (JSON, stored and announced as sent, never re-encoded).
-- ARGV[3]: everything else, one JSON object built by createArgs (script-io.ts), read by name:
--   id, createdAt, timeoutAt, ttlMs, maxPending, format, askedBy, mediaBytes, outboxTtlMs,
--   askedDetail (the ASKED audit entry's detail); when set: audience, groupId, channel,
--   routedTo (an on-call question's person on duty: field rt, indexed), ticketHash, idempotencySlot, joinWhilePending (the key joins only a PENDING question),
--   preparedId, followUps and askFollowUps (targets joined by
--   newlines), maxPendingPerPrincipal, maxMediaBytesPerPrincipal, maxMediaBytes, maxOutbox
--   (absent = no cap), escalationDue (epoch ms in step order; absent = no ladder).
local spec = ARGV[2]
local a = cjson.decode(ARGV[3])
local id, by, mb, now = a.id, a.askedBy, a.mediaBytes, a.createdAt
local idem, prepared = a.idempotencySlot, a.preparedId
local followUps, maxOutbox = a.followUps, a.maxOutbox

if idem then
  local existing = redis.call('GET', prefix .. 'idem:' .. idem)
  if existing then
    local cur = redis.call('HMGET', qkey(existing), 'spec', 'st', 'res')
    if cur[1] and not (a.joinWhilePending and cur[2] ~= 'PENDING') then
      return {'existing', cur[1], cur[2], cur[3]}
    end
  end
end

local tk = a.ticketHash
if prepared then
  tk = redis.call('GET', prefix .. 'prep:' .. prepared)
  if not tk then return {'no-reservation'} end
end

-- The caps, in order; the first one passed refuses (see held_by for the usage keys). A cap
-- that is absent (nil) never refuses.
local function over(cur, add, cap)
  return cap ~= nil and tonumber(cur or 0) + add > cap
end
if over(redis.call('ZCARD', prefix .. 'pending'), 1, a.maxPending) then return {'limit', 'pending'} end
-- The asker's live prepareExternal reservations count too (reserve.lua); the one consumed here
-- becomes this question. Read-only: reserve drops the expired ones.
local function reserved()
  local mine = prefix .. 'prepby:' .. by
  local n = redis.call('ZCOUNT', mine, '(' .. now, '+inf')
  if prepared and n > 0 then
    local exp = redis.call('ZSCORE', mine, prepared)
    if exp and tonumber(exp) > now then n = n - 1 end
  end
  return n
end
if a.maxPendingPerPrincipal ~= nil
  and over(tonumber(redis.call('HGET', prefix .. 'held:n', by) or '0') + reserved(), 1, a.maxPendingPerPrincipal) then
  return {'limit', 'pendingPerPrincipal'}
end
if over(redis.call('HGET', prefix .. 'held:b', by), mb, a.maxMediaBytesPerPrincipal) then
  return {'limit', 'mediaBytesPerPrincipal'}
end
if over(redis.call('GET', prefix .. 'held:total'), mb, a.maxMediaBytes) then return {'limit', 'mediaBytes'} end
-- At the cap a question that would add follow-ups waits; resolutions always enqueue theirs.
if followUps and over(redis.call('ZCARD', prefix .. 'outbox'), 1, maxOutbox) then
  return {'limit', 'outbox'}
end

if prepared then
  redis.call('DEL', prefix .. 'prep:' .. prepared)
  redis.call('ZREM', prefix .. 'prepby:' .. by, prepared)
end
local aud, grp, chan, rt = a.audience or '', a.groupId or '', a.channel or '', a.routedTo or ''
local q = qkey(id)
redis.call('HSET', q, 'spec', spec, 'st', 'PENDING', 'ca', now, 'to', a.timeoutAt, 'fmt', a.format,
  'aud', aud, 'grp', grp, 'chan', chan, 'by', by)
if rt ~= '' then redis.call('HSET', q, 'rt', rt) end
if tk then
  redis.call('HSET', q, 'tk', tk)
  redis.call('SET', prefix .. 'ticket:' .. tk, id, 'PX', a.ttlMs)
end
if idem then
  redis.call('HSET', q, 'ik', idem)
  redis.call('SET', prefix .. 'idem:' .. idem, id, 'PX', a.ttlMs)
end
redis.call('HSET', q, 'mb', mb)
held_by(by, 1, mb)
if followUps then redis.call('HSET', q, 'fu', followUps, 'fttl', a.outboxTtlMs) end
redis.call('PEXPIRE', q, a.ttlMs)
index_add(id, 'PENDING', now, {aud, grp, chan, by, rt}, mb)
redis.call('ZADD', prefix .. 'deadlines', a.timeoutAt, id)
if a.escalationDue then
  for i, due in ipairs(a.escalationDue) do
    redis.call('ZADD', prefix .. 'escalations', due, id .. '#' .. (i - 1))
  end
  redis.call('HSET', q, 'en', #a.escalationDue)
end
redis.call('ZADD', prefix .. 'all', now, id)
-- Follow-ups due at once (pushes of the new question), unless the outbox is at its cap.
if a.askFollowUps and not over(redis.call('ZCARD', prefix .. 'outbox'), 1, maxOutbox) then
  enqueue_follow_ups(id, a.askFollowUps, a.outboxTtlMs, now)
end
redis.call('PUBLISH', prefix .. 'events', '{"type":"ASKED","spec":' .. spec .. ',"res":null}')
audit_append('ASKED', id, by, 'api', a.askedDetail, now)
return {'created'}
