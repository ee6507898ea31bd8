-- ARGV: prefix, key, expected value, type, questionId ('' = none), actor, via,
-- detail (JSON object; '' = none), at (epoch ms)
-- Deletes a people value (a claim ended early, a channel link ended: API.md §22) with its audit
-- entry (UNCLAIMED, CHANNEL_UNLINKED), in one step, only while it still holds the value its caller
-- checked: a claim or link replaced or lapsed meanwhile is left as it is. Returns 1 when deleted, 0 when not (nothing written).
local key = prefix .. 'pv:' .. ARGV[2]
if redis.call('GET', key) ~= ARGV[3] then return 0 end
redis.call('DEL', key)
local detail = nil
if ARGV[8] ~= '' then detail = cjson.decode(ARGV[8]) end
local question = nil
if ARGV[5] ~= '' then question = ARGV[5] end
audit_append(ARGV[4], question, ARGV[6], ARGV[7], detail, ARGV[9])
return 1
