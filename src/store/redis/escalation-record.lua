-- ARGV: prefix, id, step index, fired (JSON {firedAt, outcome}). A fired step's record,
-- written once: 1 when this call wrote it, 0 when it was already there or the question is
-- gone. While the question is PENDING the change is announced as UPDATED.
local q = qkey(ARGV[2])
local cur = redis.call('HMGET', q, 'spec', 'st')
if not cur[1] then return 0 end
if redis.call('HSETNX', q, 'e' .. ARGV[3], ARGV[4]) == 0 then return 0 end
if cur[2] == 'PENDING' then
  redis.call('PUBLISH', prefix .. 'events', '{"type":"UPDATED","spec":' .. cur[1] .. ',"res":null}')
end
return 1
