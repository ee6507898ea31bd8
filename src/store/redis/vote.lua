-- ARGV: prefix, id, by, vote (JSON), decision, approvals, rejections, voters ('' = anyone,
-- else a JSON array of identities), resolution if this vote decides (JSON), now, retentionMs,
-- auditDetail (JSON: the deciding answer's facts, see voteDecisionOf), caster, votedDetail
-- (JSON: the VOTED entry's facts, see votedAuditDetail: the decision, what the voter was shown,
-- and for a delegate's vote the person it was cast for).
-- `by` is the person whose vote it is; `caster` who cast it: a delegate casting for `by`
-- (API.md §22), else `by` itself. One vote per person and one per caster.
-- One vote on a question with a quorum, in one step: pending and within its deadline, the
-- identity allowed and not yet voted, the vote appended to res ({"votes":[…]} while pending),
-- then either UPDATED or, at the threshold, the resolution (resolve() carries the votes over).
local id, by, vote, decision = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local approvals, rejections, voters = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local res, now, retention = ARGV[9], ARGV[10], ARGV[11]
local q = qkey(id)
local cur = redis.call('HMGET', q, 'spec', 'st', 'res', 'to', 'chan')
if not cur[1] then return {'missing'} end
if cur[2] ~= 'PENDING' then return {'lost', cur[1], cur[2], cur[3]} end

if tonumber(now) >= tonumber(cur[4]) then
  local t = timed_out(now)
  resolve(id, 'TIMED_OUT', t, now, retention)
  -- resolve() may have carried votes into it: answer what is stored.
  return {'lost', cur[1], 'TIMED_OUT', redis.call('HGET', qkey(id), 'res')}
end

if voters ~= '' then
  local allowed = false
  for _, v in ipairs(cjson.decode(voters)) do
    if v == by then allowed = true break end
  end
  if not allowed then return {'forbidden'} end
end

-- Who voted (v:<person>) and who cast (c:<caster>): hash fields on the record, so they live and
-- expire with it. A caster's own earlier vote counts as their cast too.
local caster = ARGV[13] or by
if redis.call('HEXISTS', q, 'v:' .. by) == 1 or redis.call('HEXISTS', q, 'c:' .. caster) == 1
  or (caster ~= by and redis.call('HEXISTS', q, 'v:' .. caster) == 1) then
  return {'voted', cur[1], cur[2], cur[3]}
end
redis.call('HSET', q, 'v:' .. by, decision, 'c:' .. caster, decision)

-- The vote's own entry: who and what they decided, never the note (it is free text).
audit_append('VOTED', id, caster, audit_via(caster, cur[5]), cjson.decode(ARGV[14]), now)

local decided = {actor = caster, detail = cjson.decode(ARGV[12])}
local votes
if cur[3] then votes = string.sub(cur[3], 1, -3) .. ',' .. vote .. ']}' else votes = '{"votes":[' .. vote .. ']}' end
redis.call('HSET', q, 'res', votes)
local count
if decision == 'APPROVED' then
  count = redis.call('HINCRBY', q, 'va', 1)
  if count >= approvals then
    resolve(id, 'ANSWERED', res, now, retention, decided)
    return {'decided', cur[1], 'ANSWERED', redis.call('HGET', q, 'res')}
  end
else
  count = redis.call('HINCRBY', q, 'vr', 1)
  if count >= rejections then
    resolve(id, 'ANSWERED', res, now, retention, decided)
    return {'decided', cur[1], 'ANSWERED', redis.call('HGET', q, 'res')}
  end
end

redis.call('PUBLISH', prefix .. 'events', '{"type":"UPDATED","spec":' .. cur[1] .. ',"res":' .. votes .. '}')
return {'counted', cur[1], 'PENDING', votes}
