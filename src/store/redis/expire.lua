-- ARGV: prefix, now, retentionMs, limit. Times out every due question (up to limit);
-- deadline entries of questions already resolved or gone are dropped.
local now, retention = ARGV[2], ARGV[3]
local due = redis.call('ZRANGEBYSCORE', prefix .. 'deadlines', '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local n = 0
for _, id in ipairs(due) do
  if redis.call('HGET', qkey(id), 'st') == 'PENDING' then
    resolve(id, 'TIMED_OUT', timed_out(now), now, retention)
    n = n + 1
  else
    redis.call('ZREM', prefix .. 'deadlines', id)
    redis.call('ZREM', prefix .. 'pending', id)
  end
end
return n
