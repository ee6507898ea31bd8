-- ARGV: prefix, now, retentionMs, limit. Times out every due question (up to limit);
-- deadline entries of questions already resolved or gone are dropped (a gone one's listing
-- entries too).
local now, retention = ARGV[2], ARGV[3]
local due = redis.call('ZRANGEBYSCORE', prefix .. 'deadlines', '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local n = 0
for _, id in ipairs(due) do
  local st = redis.call('HGET', qkey(id), 'st')
  if st == 'PENDING' then
    resolve(id, 'TIMED_OUT', timed_out(now), now, retention)
    n = n + 1
  else
    redis.call('ZREM', prefix .. 'deadlines', id)
    redis.call('ZREM', prefix .. 'pending', id)
    if not st then unindex(id) end
  end
end
return n
