-- ARGV: prefix, id, by, now, report (JSON {outcome, reportedAt, reportedBy, resultDigest,
-- detail}), auditDetail (JSON), followUps (outbox targets, one per line; '' none), followUpTtlMs
-- A used approval's outcome (API.md §23), once, in one step: consumed and not yet reported,
-- the report merged into the execution in res, the EXECUTED entry and the follow-ups.
local id, by, now, report = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local q = qkey(id)
local cur = redis.call('HMGET', q, 'spec', 'st', 'res', 'chan', 'xc', 'r0', 'fttl')
if not cur[1] then return {'missing'} end
if not cur[5] then return {'unconsumed', cur[1], cur[2], cur[3]} end
if redis.call('HSETNX', q, 'xr', '1') == 0 then return {'duplicate', cur[1], cur[2], cur[3]} end
local execution = string.sub(cur[5], 1, -2) .. ',' .. string.sub(report, 2)
local res = string.sub(cur[6], 1, -2) .. ',"execution":' .. execution .. '}'
redis.call('HSET', q, 'res', res)
audit_append('EXECUTED', id, by, audit_via(by, cur[4]), cjson.decode(ARGV[6]), now)
-- The record's own follow-up lifetime (set at ask time when it has follow-ups), else the default.
if ARGV[7] ~= '' then enqueue_follow_ups(id, ARGV[7], cur[7] or ARGV[8], now) end
return {'reported', cur[1], cur[2], res}
