-- ARGV: prefix, channel, recipient
-- The newest pending question delivered to recipient within channel; entries whose question
-- is gone are dropped on the way.
local k = prefix .. 'chto:' .. ARGV[2] .. ':' .. ARGV[3]
local ids = redis.call('ZREVRANGE', k, 0, -1)
for _, id in ipairs(ids) do
  local st = redis.call('HGET', qkey(id), 'st')
  if not st then
    redis.call('ZREM', k, id)
  elseif st == 'PENDING' then
    return id
  end
end
return false
