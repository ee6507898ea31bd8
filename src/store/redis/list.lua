-- ARGV: prefix, source ('pending'|'all'), first, cursorScore, cursorId ('' = from the start),
--       statuses (comma list, '' = any), groupId, audience, channel, askedBy
--       (each '=' .. value, or '' = any). Newest first.
-- Returns {totalCount, hasNextPage, spec1, st1, res1, spec2, ...}. Filtering happens
-- before paging, so the count is honest. Ids whose record expired are dropped (self-heal).
local src = prefix .. ARGV[2]
local first = tonumber(ARGV[3])
local cs, cid = tonumber(ARGV[4]), ARGV[5]
local want, anyStatus = {}, ARGV[6] == ''
for s in string.gmatch(ARGV[6], '[^,]+') do want[s] = true end
local fields = {ARGV[7], ARGV[8], ARGV[9], ARGV[10]}

local total, hasNext, out, gone = 0, 0, {}, {}
local offset, batch = 0, 1000
while true do
  local page = redis.call('ZRANGE', src, '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', offset, batch, 'WITHSCORES')
  if #page == 0 then break end
  for i = 1, #page, 2 do
    local id, score = page[i], tonumber(page[i + 1])
    local f = redis.call('HMGET', qkey(id), 'st', 'grp', 'aud', 'chan', 'by')
    if not f[1] then
      table.insert(gone, id)
    else
      local ok = anyStatus or want[f[1]] == true
      for j = 1, 4 do
        if ok and fields[j] ~= '' and fields[j] ~= '=' .. f[j + 1] then ok = false end
      end
      if ok then
        total = total + 1
        if cs == nil or score < cs or (score == cs and id < cid) then
          if #out < first * 3 then
            local r = redis.call('HMGET', qkey(id), 'spec', 'st', 'res')
            table.insert(out, r[1]); table.insert(out, r[2]); table.insert(out, r[3])
          else
            hasNext = 1
          end
        end
      end
    end
  end
  offset = offset + batch
end
for _, id in ipairs(gone) do
  redis.call('ZREM', src, id)
end
local reply = {total, hasNext}
for _, v in ipairs(out) do table.insert(reply, v) end
return reply
