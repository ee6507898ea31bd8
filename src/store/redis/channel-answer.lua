-- ARGV: prefix, id, place (the channel instance the click came through), format, resolution
--       (JSON), now, retentionMs, actor (answeredBy), auditDetail (JSON: the answer's audit facts)
-- A channel click in one round trip (API.md §9): the question and place's delivery, and, when it
-- is still pending and takes a one-step answer for `format` (mirrors takesOneStepAnswer in
-- src/domain/channel-answer.ts: delivered to place itself, of that format, not sensitive, no
-- quorum, an APPROVAL with its action and no requester), its claim through the one resolve(). claim.lua's
-- deadline rule: past it, the question times out here instead. Anything else is returned
-- untouched for the door's full path.
-- Replies: {'missing'}; {'won', spec, res, chan, rc, rd, prc, prd}; {'other', spec, st, res,
-- chan, rc, rd, prc, prd}, the last five being deliveryFieldsOf(place) (redis/deliveries.ts).
local id, place, format, res, now, retention = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local q = qkey(id)
local cur = redis.call('HMGET', q, 'spec', 'st', 'res', 'to', 'chan', 'rc', 'rd', 'rc:' .. place, 'rd:' .. place)
if not cur[1] then return {'missing'} end

local function other(st, r)
  return {'other', cur[1], st, r, cur[5], cur[6], cur[7], cur[8], cur[9]}
end
if cur[2] ~= 'PENDING' then return other(cur[2], cur[3]) end

local ok, spec = pcall(cjson.decode, cur[1])
if not ok or type(spec) ~= 'table' or spec.format ~= format or spec.channel ~= place
    or spec.sensitive ~= false or (spec.quorum ~= nil and spec.quorum ~= cjson.null)
    or (format == 'APPROVAL' and type(spec.action) ~= 'table')
    -- Separation of duties (API.md §22): a requester's click goes through the full answer path.
    or (format == 'APPROVAL' and (type(spec.action.requestedBy) == 'string' or spec.action.requireSeparateRequester == true)) then
  return other(cur[2], cur[3])
end

if tonumber(now) >= tonumber(cur[4]) then
  resolve(id, 'TIMED_OUT', timed_out(now), now, retention)
  return other('TIMED_OUT', redis.call('HGET', q, 'res'))
end

resolve(id, 'ANSWERED', res, now, retention, {actor = ARGV[8], detail = cjson.decode(ARGV[9])})
-- As claim.lua: answer what is stored (resolve() carries any votes into it; none here).
if cur[3] then res = redis.call('HGET', q, 'res') end
return {'won', cur[1], res, cur[5], cur[6], cur[7], cur[8], cur[9]}
