-- ARGV: prefix, key, value, expiresAt (epoch ms), type, questionId ('' = none), actor, via,
-- detail (JSON object; '' = none), at (epoch ms)
-- A people value (a claim, a person's notification preferences, a channel link: API.md §22) set
-- with its audit entry (CLAIMED, NOTIFICATION_PREFS_CHANGED, CHANNEL_LINKED), in one step. The
-- type is the caller's (PeopleAudit in store/people.ts); this script writes whichever it is given.
redis.call('SET', prefix .. 'pv:' .. ARGV[2], ARGV[3], 'PXAT', ARGV[4])
local detail = nil
if ARGV[9] ~= '' then detail = cjson.decode(ARGV[9]) end
local question = nil
if ARGV[6] ~= '' then question = ARGV[6] end
audit_append(ARGV[5], question, ARGV[7], ARGV[8], detail, ARGV[10])
return 1
