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
for i = 1, #page, 2 do
  local id = page[i]
  local f = redis.call('HMGET', qkey(id), 'st', 'aud', 'grp', 'chan', 'by')
  if f[1] then
    index_add(id, f[1], page[i + 1], {f[2] or '', f[3] or '', f[4] or '', f[5] or ''})
  else
    unindex(id)
  end
end
redis.call('HSET', prefix .. 'ixv:at', 's', page[#page], 'i', page[#page - 1])
return #page / 2
