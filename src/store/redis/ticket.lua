-- ARGV: prefix, ticketHash. The question a live ticket names, in one round trip:
-- {spec, status, resolution} or nil (unknown, expired, or its record is gone).
local id = redis.call('GET', prefix .. 'ticket:' .. ARGV[2])
if not id then return nil end
local cur = redis.call('HMGET', qkey(id), 'spec', 'st', 'res')
if not cur[1] then return nil end
return cur
