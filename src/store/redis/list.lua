-- ARGV: prefix, first, cursorScore, cursorId ('' = from the start), statuses (comma list,
--       '' = any), groupId, audience, channel, askedBy, routedTo (each '=' .. value, or '' = any;
--       routedTo: a delegate's handed-on on-call questions, API.md §22).
-- Newest first. Returns {totalCount, hasNextPage, spec1, st1, res1, spec2, ...}.
-- The sources are the listing indexes (see common.lua) for the statuses asked, merged:
--   no field filter  -> `all` or the status sets; count = ZCARD
--   one field filter -> its per-status sets;      count = ZCARD
--   more fields      -> the smallest one's sets, walked whole to filter and count
-- Ids whose record expired before prune reached them are skipped, uncounted and unindexed.
local first = tonumber(ARGV[2])
local cs, cid = tonumber(ARGV[3]), ARGV[4]

local statuses, seen = {}, {}
for s in string.gmatch(ARGV[5], '[^,]+') do
  if not seen[s] then seen[s] = true; table.insert(statuses, s) end
end
local anyStatus = #statuses == 0 or #statuses == #STATUSES
if #statuses == 0 then statuses = STATUSES end

local wanted = {}
for i, f in ipairs({'grp', 'aud', 'chan', 'by', 'rt'}) do
  local a = ARGV[5 + i]
  if a ~= '' then table.insert(wanted, {f, string.sub(a, 2)}) end
end

-- Pick the sources.
local sources, total, residual = {}, 0, {}
if #wanted == 0 then
  if anyStatus then sources = {prefix .. 'all'} else
    for _, s in ipairs(statuses) do table.insert(sources, status_key(s)) end
  end
else
  local best, bestSize
  for i, w in ipairs(wanted) do
    local keys, size = {}, 0
    for _, s in ipairs(statuses) do
      local k = field_key(w[1], s, w[2])
      table.insert(keys, k)
      size = size + redis.call('ZCARD', k)
    end
    if bestSize == nil or size < bestSize then best, bestSize, sources = i, size, keys end
  end
  for i, w in ipairs(wanted) do
    if i ~= best then table.insert(residual, w) end
  end
end
local walkAll = #residual > 0
if not walkAll then
  for _, k in ipairs(sources) do total = total + redis.call('ZCARD', k) end
end

-- A newest-first merge of the sources, read in chunks: from the cursor on, or (to count)
-- from the start when walking.
local chunk = first + 1
if walkAll then chunk = 500 end
-- rt is read per question only when a filter on it is left to check (a delegate's page).
local readRt = false
for _, w in ipairs(residual) do
  if w[1] == 'rt' then readRt = true end
end
local heads = {}
for _, k in ipairs(sources) do
  local rank = 0
  if not walkAll then rank = rank_after(k, cs, cid) end
  table.insert(heads, {key = k, rank = rank, buf = {}, at = 1})
end
local function peek(h)
  if h.at > #h.buf then
    if h.done then return nil end
    h.buf = redis.call('ZRANGE', h.key, h.rank, h.rank + chunk - 1, 'REV', 'WITHSCORES')
    h.at = 1
    h.rank = h.rank + chunk
    if #h.buf < chunk * 2 then h.done = true end
    if #h.buf == 0 then return nil end
  end
  return h.buf[h.at], tonumber(h.buf[h.at + 1])
end
local function next_id()
  local pick, pid, pscore
  for _, h in ipairs(heads) do
    local id, score = peek(h)
    if id and (pick == nil or score > pscore or (score == pscore and bytes_before(pid, id))) then
      pick, pid, pscore = h, id, score
    end
  end
  if pick then pick.at = pick.at + 2 end
  return pid, pscore
end

local hasNext, out, gone, matched = 0, {}, {}, 0
while walkAll or #out < first * 3 or hasNext == 0 do
  local id, score = next_id()
  if not id then break end
  local q = qkey(id)
  local ok = true
  local r
  if readRt then
    r = redis.call('HMGET', q, 'st', 'aud', 'grp', 'chan', 'by', 'rt')
  else
    r = redis.call('HMGET', q, 'st', 'aud', 'grp', 'chan', 'by')
  end
  if not r[1] then
    table.insert(gone, id)
    ok = false
  else
    local have = {aud = r[2], grp = r[3], chan = r[4], by = r[5], rt = r[6]}
    for _, w in ipairs(residual) do
      if have[w[1]] ~= w[2] then ok = false end
    end
  end
  if ok then
    matched = matched + 1
    if not walkAll or cs == nil or score < cs or (score == cs and bytes_before(id, cid)) then
      if #out < first * 3 then
        local rec = redis.call('HMGET', q, 'spec', 'st', 'res')
        table.insert(out, rec[1]); table.insert(out, rec[2]); table.insert(out, rec[3])
      else
        hasNext = 1
      end
    end
  end
end

if walkAll then total = matched else total = total - #gone end
for _, id in ipairs(gone) do unindex(id) end
local reply = {total, hasNext}
for _, v in ipairs(out) do table.insert(reply, v) end
return reply
