-- ARGV: prefix, id, status, resolution, now, retentionMs, reply, hasReply ('1'/'0'), actor ('' =
--       none), auditDetail (JSON: the audit entry's facts, see claimAuditOf), auditType ('' = the
--       status; DECIDED_BY_POLICY for a rule's decision)
-- Exactly one claim of a pending question wins. A question past its deadline times out
-- here instead of accepting a late answer or cancel.
local id, status, res, now, retention = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local cur = redis.call('HMGET', qkey(id), 'spec', 'st', 'res', 'to')
if not cur[1] then return {'missing'} end
if cur[2] ~= 'PENDING' then return {'lost', cur[1], cur[2], cur[3]} end

if status ~= 'TIMED_OUT' and tonumber(now) >= tonumber(cur[4]) then
  local t = timed_out(now)
  resolve(id, 'TIMED_OUT', t, now, retention)
  -- resolve() may have carried votes into it: answer what is stored.
  return {'lost', cur[1], 'TIMED_OUT', redis.call('HGET', qkey(id), 'res')}
end

if ARGV[8] == '1' then redis.call('SET', prefix .. 'reply:' .. id, ARGV[7], 'PX', retention) end
local actor = ARGV[9]
if actor == '' then actor = nil end
local entry_type = ARGV[11]
if entry_type == '' then entry_type = nil end
resolve(id, status, res, now, retention, {actor = actor, detail = cjson.decode(ARGV[10]), type = entry_type})
-- resolve() carried the votes cast so far into it: answer what is stored.
if cur[3] then res = redis.call('HGET', qkey(id), 'res') end
return {'won', cur[1], status, res}
