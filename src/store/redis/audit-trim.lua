-- ARGV: prefix, cutoff (ISO 8601 UTC, the format every entry's `at` has, so it orders as bytes),
-- limit. Retention of the audit log: drops chained entries older than the cutoff from the oldest
-- end only (it stops at the first newer one), at most limit. The first kept entry keeps its
-- prev, so the chain stays checkable from there. Returns how many were dropped.
local e = prefix .. 'audit:e'
local first = tonumber(redis.call('GET', prefix .. 'audit:first') or '1')
local head = redis.call('GET', prefix .. 'audit:head')
if not head then return 0 end
local headSeq = tonumber(string.match(head, '^(%d+)'))
local stop = math.min(headSeq, first + tonumber(ARGV[3]) - 1)
local n = 0
local seq = first
while seq <= stop do
  local raw = redis.call('HGET', e, seq)
  if raw then
    local entry = cjson.decode(raw)
    if type(entry.at) ~= 'string' or not bytes_before(entry.at, ARGV[2]) then break end
    redis.call('HDEL', e, seq)
    if type(entry.questionId) == 'string' then
      redis.call('ZREM', prefix .. 'audit:q:' .. entry.questionId, seq)
    end
  end
  n = n + 1
  seq = seq + 1
end
if n > 0 then redis.call('SET', prefix .. 'audit:first', seq) end
return n
