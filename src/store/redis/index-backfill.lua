-- ARGV: prefix, version, batch. Indexes (see common.lua) up to batch questions of `all`
-- written before the listing indexes existed, newest first from where the last call stopped
-- (ixv:at), and drops ids whose record is gone. Idempotent: create and resolve keep indexing
-- meanwhile. Sets ixv to version when `all` is done. Returns how many it read, -1 once done.
local version, batch = ARGV[2], tonumber(ARGV[3])
if redis.call('GET', prefix .. 'ixv') == version then return -1 end
local at = redis.call('HMGET', prefix .. 'ixv:at', 's', 'i')
local start = 0
if at[1] then start = rank_after(prefix .. 'all', tonumber(at[1]), at[2]) end
local page = redis.call('ZRANGE', prefix .. 'all', start, start + batch - 1, 'REV', 'WITHSCORES')
if #page == 0 then
  redis.call('SET', prefix .. 'ixv', version)
  redis.call('DEL', prefix .. 'ixv:at')
  return -1
end
-- Version 2 adds rt (routedTo): an on-call question stored before it keeps its routedTo in the
-- spec only, so it is read from there once and kept as the field the listing filters on.
local function routed_to(q, aud, rt, spec)
  if rt or string.sub(aud or '', 1, 7) ~= 'oncall:' or not spec then return rt or '' end
  local ok, s = pcall(cjson.decode, spec)
  if not ok or type(s) ~= 'table' or type(s.routedTo) ~= 'string' or s.routedTo == '' then return '' end
  redis.call('HSET', q, 'rt', s.routedTo)
  return s.routedTo
end
for i = 1, #page, 2 do
  local id = page[i]
  local q = qkey(id)
  local f = redis.call('HMGET', q, 'st', 'aud', 'grp', 'chan', 'by', 'rt', 'spec')
  if f[1] then
    local rt = routed_to(q, f[2], f[6], f[7])
    -- A pending question indexed at create keeps the media bytes its entry remembers (unindex
    -- gives them back if the record vanishes).
    local mb
    local had = redis.call('HGET', prefix .. 'ixof', id)
    if had then
      local m6 = cjson.decode(had)[6]
      if type(m6) == 'number' then mb = m6 end
    end
    index_add(id, f[1], page[i + 1], {f[2] or '', f[3] or '', f[4] or '', f[5] or '', rt}, mb)
  else
    unindex(id)
  end
end
redis.call('HSET', prefix .. 'ixv:at', 's', page[#page], 'i', page[#page - 1])
return #page / 2
