-- ARGV: prefix, channel, recipient
-- The newest pending question delivered to recipient within channel, and how many of the
-- index's questions are pending ({id, count}; false when none). Entries whose question is
-- gone are dropped on the way. The index holds at most RECIPIENT_INDEX_DEPTH ids.
local k = prefix .. 'chto:' .. ARGV[2] .. ':' .. ARGV[3]
local ids = redis.call('ZREVRANGE', k, 0, -1)
local newest, count = false, 0
for _, id in ipairs(ids) do
  local st = redis.call('HGET', qkey(id), 'st')
  if not st then
    redis.call('ZREM', k, id)
  elseif st == 'PENDING' then
    if not newest then newest = id end
    count = count + 1
  end
end
if not newest then return false end
return {newest, count}
