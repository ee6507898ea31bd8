-- ARGV: prefix, id, graceMs. The sensitive answer for its asker. The first read does not
-- delete it: it shortens its life to the grace (PEXPIRE LT never lengthens it), so a
-- re-attach after a response that was never delivered still gets it, and later reads do not
-- extend the window. A grace of 0 spends it at once.
local k = prefix .. 'reply:' .. ARGV[2]
local v = redis.call('GET', k)
if not v then return nil end
local grace = tonumber(ARGV[3])
if grace <= 0 then
  redis.call('DEL', k)
else
  redis.call('PEXPIRE', k, grace, 'LT')
end
return v
