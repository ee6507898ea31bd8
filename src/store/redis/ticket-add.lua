-- ARGV: prefix, id, ticketHash. A further callback ticket for a question still PENDING (an
-- escalation step's delivery hands out a callback URL of its own, API.md §18): it names the
-- question and lives as long as the record does. 1 when added, 0 otherwise.
local q = qkey(ARGV[2])
if redis.call('HGET', q, 'st') ~= 'PENDING' then return 0 end
local ttl = redis.call('PTTL', q)
if ttl <= 0 then return 0 end
redis.call('SET', prefix .. 'ticket:' .. ARGV[3], ARGV[2], 'PX', ttl)
return 1
