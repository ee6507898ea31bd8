-- ARGV: prefix, then question ids. Each question's status, '' where its record is gone, in
-- order: one command for a whole batch of the sweep's held questions (a pipeline would make a
-- command object, a promise and a reply per question).
local out = {}
for i = 2, #ARGV do
  out[i - 1] = redis.call('HGET', qkey(ARGV[i]), 'st') or ''
end
return out
