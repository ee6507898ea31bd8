-- ARGV: prefix, id, token hash, url
-- A short link that expires with its question (the record's TTL at this moment).
local id = ARGV[2]
local ttl = redis.call('PTTL', qkey(id))
if ttl <= 0 then return 0 end
redis.call('SET', prefix .. 'link:' .. ARGV[3], id .. '\n' .. ARGV[4], 'PX', ttl)
return 1
