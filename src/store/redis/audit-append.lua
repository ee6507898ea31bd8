-- ARGV: prefix, type, questionId, actor, via ('' = none), detail (JSON object; '' = none), at.
-- An audit entry that records no state change of its own (e.g. CALLBACK_REFUSED): appended in
-- one step, numbered like every other (see audit_append in common.lua).
local function opt(v) if v == '' then return nil end return v end
local detail = nil
if ARGV[6] ~= '' then detail = cjson.decode(ARGV[6]) end
return audit_append(ARGV[2], opt(ARGV[3]), opt(ARGV[4]), opt(ARGV[5]), detail, ARGV[7])
