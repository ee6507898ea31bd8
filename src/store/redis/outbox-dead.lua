-- ARGV: prefix, now, first (0 = count only). Forgets dead letters whose retention ended, then
-- returns {items in the outbox, dead letters alive, the newest `first` dead letters (JSON)}.
local now, first = tonumber(ARGV[2]), tonumber(ARGV[3])
local dead, rec = prefix .. 'obdead', prefix .. 'obdead:rec'
local gone = redis.call('ZRANGEBYSCORE', dead, '-inf', now, 'LIMIT', 0, 1000)
if #gone > 0 then
  redis.call('HDEL', rec, unpack(gone))
  redis.call('ZREM', dead, unpack(gone))
end
local letters = {}
if first > 0 then
  local ids = redis.call('ZRANGE', dead, 0, first - 1, 'REV')
  if #ids > 0 then letters = redis.call('HMGET', rec, unpack(ids)) end
end
return {redis.call('ZCARD', prefix .. 'outbox'), redis.call('ZCARD', dead), letters}
