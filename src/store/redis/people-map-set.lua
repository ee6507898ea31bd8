-- ARGV: prefix, owner, field, value, max fields, expires at (epoch ms)
-- One field of a person's small map, refused when the map is full of other fields.
local key = prefix .. 'pm:' .. ARGV[2]
if redis.call('HEXISTS', key, ARGV[3]) == 0 and redis.call('HLEN', key) >= tonumber(ARGV[5]) then
  return 0
end
redis.call('HSET', key, ARGV[3], ARGV[4])
local at = tonumber(ARGV[6])
if redis.call('PEXPIRETIME', key) < at then redis.call('PEXPIREAT', key, at) end
return 1
