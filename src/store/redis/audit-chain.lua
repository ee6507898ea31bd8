-- ARGV: prefix, fromSeq, fromHash ('' = the chain is empty), toHash, then seq, entry pairs.
-- Compare-and-set of the chain head: the chained entries (prev and hash computed in Node, in seq
-- order) replace their drafts only if the head is still at fromSeq with fromHash and the seqs
-- follow it one by one; then the head moves to the last of them with toHash. Two instances
-- chaining at once compute the same values; the second finds the head moved and writes nothing.
-- Returns 1 when written, 0 when the head had moved.
local headKey = prefix .. 'audit:head'
local cur = redis.call('GET', headKey)
local want = ''
if ARGV[3] ~= '' then want = ARGV[2] .. ' ' .. ARGV[3] end
if (cur or '') ~= want then return 0 end
local expect = tonumber(ARGV[2]) + 1
local last = nil
for i = 5, #ARGV, 2 do
  if tonumber(ARGV[i]) ~= expect then return redis.error_reply('audit chain: seqs out of order') end
  if redis.call('HEXISTS', prefix .. 'audit:e', ARGV[i]) == 0 then
    return redis.error_reply('audit chain: no draft for seq ' .. ARGV[i])
  end
  redis.call('HSET', prefix .. 'audit:e', ARGV[i], ARGV[i + 1])
  last = ARGV[i]
  expect = expect + 1
end
if last then redis.call('SET', headKey, last .. ' ' .. ARGV[4]) end
return 1
