-- ARGV: prefix, questionId, now, ttl, target... Enqueues one outbox item per target, due at
-- now, outside any claim (a new question's pushes, one per device): the same items
-- enqueue_follow_ups writes, and like it, an item already there is left as it is. Returns how
-- many were added.
local id, now, ttl = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local added = 0
for i = 5, #ARGV do
  local item = id .. ':' .. ARGV[i]
  local k = prefix .. 'ob:' .. item
  if redis.call('EXISTS', k) == 0 then
    redis.call('HSET', k, 'q', id, 't', ARGV[i], 'a', 0, 'd', now, 'e', now)
    redis.call('PEXPIRE', k, ttl)
    redis.call('ZADD', prefix .. 'outbox', now, item)
    added = added + 1
  end
end
return added
