-- ARGV: prefix, channel, recipient, deliveredBy (epoch ms; '' = any time)
-- The newest pending question delivered to recipient within channel, and how many of the
-- index's questions are pending ({id, count}; false when none). With deliveredBy, only
-- questions delivered at or before it count. Entries whose question is gone are dropped on
-- the way. The index holds at most RECIPIENT_INDEX_DEPTH ids.
local k = prefix .. 'chto:' .. ARGV[2] .. ':' .. ARGV[3]
local by = tonumber(ARGV[4])
local ids = redis.call('ZREVRANGE', k, 0, -1)
local newest, count = false, 0
for _, id in ipairs(ids) do
  local cur = redis.call('HMGET', qkey(id), 'st', 'rd', 'chan', 'rd:' .. ARGV[2])
  -- Delivered here by a REROUTE step (another place than its own channel): that delivery's time.
  if cur[3] ~= ARGV[2] then cur[2] = cur[4] end
  local st = cur[1]
  if not st then
    redis.call('ZREM', k, id)
  elseif st == 'PENDING' and (not by or (tonumber(cur[2]) or 0) <= by) then
    if not newest then newest = id end
    count = count + 1
  end
end
if not newest then return false end
return {newest, count}
