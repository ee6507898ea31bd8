-- ARGV: prefix, id, token hash, url
-- A short link that expires with its question: at the record's own expiry time, exactly.
local id = ARGV[2]
local at = redis.call('PEXPIRETIME', qkey(id))
if at <= 0 then return 0 end
redis.call('SET', prefix .. 'link:' .. ARGV[3], id .. '\n' .. ARGV[4], 'PXAT', at)
return 1
