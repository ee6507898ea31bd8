-- ARGV: prefix, now, max, leaseMs, owner, tokenBase. Leases up to max due items, oldest
-- first: each gets a fresh token and is hidden (its score moves to now + leaseMs) until the
-- lease expires. An item still carrying a token was leased before and never settled: this
-- lease counts as its next attempt. Items whose hash expired are dropped from the index.
local now, leaseMs = tonumber(ARGV[2]), tonumber(ARGV[4])
local index = prefix .. 'outbox'
local due = redis.call('ZRANGEBYSCORE', index, '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for i = 1, #due, 2 do
  local item, dueAt = due[i], due[i + 1]
  local k = prefix .. 'ob:' .. item
  local f = redis.call('HMGET', k, 'q', 't', 'a', 'e', 'lt')
  if not f[1] then
    redis.call('ZREM', index, item)
  else
    local attempt = tonumber(f[3])
    if f[5] then attempt = attempt + 1 end
    local token = ARGV[6] .. '.' .. ((i + 1) / 2)
    redis.call('HSET', k, 'a', attempt, 'd', dueAt, 'lt', token, 'lo', ARGV[5])
    redis.call('ZADD', index, now + leaseMs, item)
    table.insert(out, {item, f[1], f[2], attempt, dueAt, f[4], token})
  end
end
return out
