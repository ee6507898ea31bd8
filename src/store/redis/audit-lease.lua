-- ARGV: prefix, owner, ms. The audit log's chaining lease: the chaining worker of one instance at
-- a time chains in the background (engine/audit-chainer.ts), so two instances do not hash the
-- same drafts. Taken when free or lapsed, renewed by its holder. Returns 1 when owner holds it.
local k = prefix .. 'audit:chainer'
local cur = redis.call('GET', k)
if cur and cur ~= ARGV[2] then return 0 end
redis.call('SET', k, ARGV[2], 'PX', ARGV[3])
return 1
