-- ARGV: prefix, id, step index, fired (JSON {firedAt, outcome}), firedAt, action (REMIND or
-- REROUTE), channel ('' = none), delivered ('1'/'0'). A fired step's record, written once: 1
-- when this call wrote it, 0 when it was already there or the question is gone. While the
-- question is PENDING the change is announced as UPDATED; its audit entry (REMINDED or
-- ESCALATED, with the step, the channel and whether it was delivered) is appended either way.
local q = qkey(ARGV[2])
local cur = redis.call('HMGET', q, 'spec', 'st', 'res')
if not cur[1] then return 0 end
if redis.call('HSETNX', q, 'e' .. ARGV[3], ARGV[4]) == 0 then return 0 end
if cur[2] == 'PENDING' then
  -- A pending question's res holds the votes cast so far (vote.lua), if any: they ride along.
  redis.call('PUBLISH', prefix .. 'events', '{"type":"UPDATED","spec":' .. cur[1] .. ',"res":' .. (cur[3] or 'null') .. '}')
end
local detail = {step = tonumber(ARGV[3]), action = ARGV[6], delivered = ARGV[8] == '1'}
if ARGV[7] ~= '' then detail.channel = ARGV[7] end
local kind = 'REMINDED'
if ARGV[6] == 'REROUTE' then kind = 'ESCALATED' end
audit_append(kind, ARGV[2], nil, nil, detail, ARGV[5])
return 1
