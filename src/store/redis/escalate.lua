-- ARGV: prefix, now, limit, itemTtlMs. Moves every due escalation step (up to limit) of a
-- question still PENDING into the outbox as the item <id>:escalate:<index>, due now (the same
-- hash and index enqueue_follow_ups writes), so exactly one worker of any instance performs
-- it. Steps of questions no longer pending, or gone, are dropped. Returns how many moved.
local now, ttl = ARGV[2], ARGV[4]
local due = redis.call('ZRANGEBYSCORE', prefix .. 'escalations', '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local n = 0
for _, member in ipairs(due) do
  redis.call('ZREM', prefix .. 'escalations', member)
  local id, step = string.match(member, '^(.*)#(%d+)$')
  if id and redis.call('HGET', qkey(id), 'st') == 'PENDING' then
    local target = 'escalate:' .. step
    local item = id .. ':' .. target
    local k = prefix .. 'ob:' .. item
    if redis.call('EXISTS', k) == 0 then
      redis.call('HSET', k, 'q', id, 't', target, 'a', 0, 'd', now, 'e', now)
      redis.call('PEXPIRE', k, ttl)
      redis.call('ZADD', prefix .. 'outbox', now, item)
      n = n + 1
    end
  end
end
return n
