-- Shared by every script (prepended at load). ARGV[1] is always the key prefix.
-- Records are hashes: spec (the question JSON, written once), st (status), res (the
-- resolution JSON, written by the claim), plus small fields used for filtering.
local prefix = ARGV[1]

local function qkey(id)
  return prefix .. 'q:' .. id
end

-- Listing indexes: sorted sets of ids scored by createdAt, like `all`. One per status (the
-- PENDING one is `pending`) and one per status and value of each filter field:
-- ix:<field>:<status>:<value> for aud, grp, chan, by and rt (an on-call question's routedTo, the
-- person a rotation routed it to when asked: their delegate's listing reads it, API.md §22).
-- The hash ixof maps each indexed id to {status, aud, grp, chan, by, mb[, rt]}: it outlives the
-- record, so prune and the listing's self-heal can unindex an id whose record has already expired.
local IX_FIELDS = {'aud', 'grp', 'chan', 'by', 'rt'}
local STATUSES = {'PENDING', 'ANSWERED', 'TIMED_OUT', 'CANCELLED'}

local function status_key(st)
  if st == 'PENDING' then return prefix .. 'pending' end
  return prefix .. 'ix:st:' .. st
end

local function field_key(f, st, v)
  return prefix .. 'ix:' .. f .. ':' .. st .. ':' .. v
end

-- What pending questions hold: held:n and held:b are hashes askedBy -> count and media
-- bytes, held:total the media bytes of all. create adds (+1, mb); resolve takes it back.
local function held_by(by, n, mb)
  local left = redis.call('HINCRBY', prefix .. 'held:n', by, n)
  if left <= 0 then
    redis.call('HDEL', prefix .. 'held:n', by)
    redis.call('HDEL', prefix .. 'held:b', by)
  else
    redis.call('HINCRBY', prefix .. 'held:b', by, mb)
  end
  redis.call('INCRBY', prefix .. 'held:total', mb)
end

-- vals: {aud, grp, chan, by, rt}, '' (or nil) where the question has none. mb: the media bytes a
-- new PENDING question added to the usage counters (nil otherwise), kept so that a pending record
-- that vanishes (evicted) can still give its usage back.
local function index_add(id, st, score, vals, mb)
  redis.call('ZADD', status_key(st), score, id)
  for i, f in ipairs(IX_FIELDS) do
    if vals[i] and vals[i] ~= '' then redis.call('ZADD', field_key(f, st, vals[i]), score, id) end
  end
  local packed = {st, vals[1], vals[2], vals[3], vals[4], mb}
  -- rt only when there is one (most questions have none: their entry keeps its old shape); mb's
  -- place then holds false, not a hole (cjson would write null, which Lua reads as true).
  if vals[5] and vals[5] ~= '' then packed[6] = mb or false; packed[7] = vals[5] end
  redis.call('HSET', prefix .. 'ixof', id, cjson.encode(packed))
end

local function index_rem(id, st, vals)
  redis.call('ZREM', status_key(st), id)
  for i, f in ipairs(IX_FIELDS) do
    if vals[i] and vals[i] ~= '' then redis.call('ZREM', field_key(f, st, vals[i]), id) end
  end
end

-- Every listing entry of an id (its record may be gone): what ixof remembers, plus `all`.
local function unindex(id)
  local packed = redis.call('HGET', prefix .. 'ixof', id)
  if packed then
    local m = cjson.decode(packed)
    index_rem(id, m[1], {m[2], m[3], m[4], m[5], m[7] or ''})
    -- A pending record that vanished still counted against its asker's quota.
    if m[1] == 'PENDING' and m[6] then held_by(m[5], -1, 0 - tonumber(m[6])) end
    redis.call('HDEL', prefix .. 'ixof', id)
  end
  redis.call('ZREM', prefix .. 'pending', id)
  redis.call('ZREM', prefix .. 'all', id)
end

-- Member order inside a sorted set is bytewise; Lua's < follows the locale.
local function bytes_before(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- The rank (newest first) of the first member of key after the cursor (cs, cid): the members
-- newer than cs, then a binary search among those scored cs (ids descend there). O(log^2 n).
local function rank_after(key, cs, cid)
  if cs == nil then return 0 end
  local lo = redis.call('ZCOUNT', key, '(' .. cs, '+inf')
  local hi = lo + redis.call('ZCOUNT', key, cs, cs)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local m = redis.call('ZRANGE', key, mid, mid, 'REV')[1]
    if bytes_before(m, cid) then hi = mid else lo = mid + 1 end
  end
  return lo
end

-- Follow-ups of a resolving question: one outbox item per target, due now. Items are
-- hashes ob:<questionId>:<target> (q, t, a = attempt, d = dueAt, e = enqueuedAt, lt = lease
-- token while leased); the sorted set outbox orders them by when they are next due.
local function enqueue_follow_ups(id, fu, ttl, now)
  if not fu then return end
  for target in string.gmatch(fu, '[^\n]+') do
    local item = id .. ':' .. target
    local k = prefix .. 'ob:' .. item
    if redis.call('EXISTS', k) == 0 then
      redis.call('HSET', k, 'q', id, 't', target, 'a', 0, 'd', now, 'e', now)
      redis.call('PEXPIRE', k, ttl)
      redis.call('ZADD', prefix .. 'outbox', now, item)
    end
  end
end

-- Escalation steps (API.md §18) are durable timers: the sorted set `escalations` holds one
-- member <id>#<step index> per step not yet fired, scored by when it is due, beside
-- `deadlines`. The record's `en` is how many steps it has; `e<index>` what a fired step
-- recorded (JSON {firedAt, outcome}, written once).
local function drop_escalations(id, en)
  local n = tonumber(en or '0') or 0
  for i = 0, n - 1 do redis.call('ZREM', prefix .. 'escalations', id .. '#' .. i) end
end

-- The audit log (API.md §17), appended by the same script as the change it records. Entries
-- are JSON in the hash audit:e (field = seq; seq from INCR audit:seq, gap-free), indexed per
-- question in the sorted set audit:q:<id>. Lua has no SHA-256: Node chains them right after
-- (audit-chain.lua writes prev and hash, advancing audit:head "<seq> <hash>"), so an entry
-- written here has neither yet. detail: a table of small facts (digests, format, channel,
-- decision; never an answer value or a secret) or nil. at: epoch ms. Returns the seq (0 when
-- the store runs with the log off, an internal switch for the bench: AUDIT_ON is prepended).
local function audit_append(type, question_id, actor, via, detail, at)
  if not AUDIT_ON then return 0 end
  local seq = redis.call('INCR', prefix .. 'audit:seq')
  local e = {
    seq = seq, at = tonumber(at), type = type,
    questionId = question_id or cjson.null, actor = actor or cjson.null, via = via or cjson.null,
    detail = detail or cjson.null,
  }
  redis.call('HSET', prefix .. 'audit:e', seq, cjson.encode(e))
  if question_id then redis.call('ZADD', prefix .. 'audit:q:' .. question_id, seq, seq) end
  return seq
end

-- The door a change came through, from who made it (mirrors auditViaOf in domain/audit.ts).
local function audit_via(actor, chan)
  if not actor then return nil end
  if actor == 'callback' then return 'callback' end
  if string.sub(actor, 1, 7) == 'policy:' then return 'policy' end
  if string.sub(actor, 1, 4) == 'mcp:' then return 'mcp' end
  if chan and chan ~= '' and string.sub(actor, 1, #chan + 1) == chan .. ':' then return 'channel:' .. chan end
  return 'api'
end

-- The one place a question leaves PENDING: status, indexes, TTLs, follow-ups, announcement,
-- and its audit entry. audit (optional): {actor = who made the change, detail = table of facts
-- computed by the caller (an answer's digest and decision), type = the entry type when it is not
-- the status (DECIDED_BY_POLICY)}; the format is added here and a
-- decision kept only for APPROVAL and CONFIRM.
local function resolve(id, status, res, now, retention, audit)
  local q = qkey(id)
  -- Every field this needs in one call (a Redis call from Lua costs more than its work here).
  local held = redis.call('HMGET', q, 'by', 'mb', 'aud', 'grp', 'chan', 'ca', 'fmt', 'fu', 'fttl', 'tk', 'ik', 'spec', 'en', 'res', 'rt')
  held_by(held[1], -1, 0 - tonumber(held[2] or '0'))
  -- A pending question's res holds only {"votes":[…]} (vote.lua): they ride the resolution.
  if held[14] then res = string.sub(res, 1, -2) .. ',' .. string.sub(held[14], 2) end
  redis.call('HSET', q, 'st', status, 'res', res)
  local vals = {held[3] or '', held[4] or '', held[5] or '', held[1] or '', held[15] or ''}
  index_rem(id, 'PENDING', vals)
  index_add(id, status, held[6] or now, vals)
  redis.call('ZREM', prefix .. 'deadlines', id)
  -- Its ladder stops here: no step fires after the question left PENDING.
  drop_escalations(id, held[13])
  redis.call('ZADD', prefix .. 'history', now, id)
  redis.call('PEXPIRE', q, retention)
  if held[10] then redis.call('PEXPIRE', prefix .. 'ticket:' .. held[10], retention) end
  if held[11] then redis.call('PEXPIRE', prefix .. 'idem:' .. held[11], retention) end
  enqueue_follow_ups(id, held[8], held[9], now)
  local spec = held[12]
  local msg
  if held[7] then
    -- A head line, then the spec: subscribers count and route by the head and parse the spec
    -- only if a consumer wants the question (record-codec.ts, decodeEvent).
    msg = '{"type":"' .. status .. '","id":' .. cjson.encode(id) .. ',"format":"' .. held[7] .. '","createdAt":'
      .. held[6] .. ',"followUps":' .. (held[8] and 'true' or 'false') .. ',"res":' .. res .. '}\n' .. spec
  else
    msg = '{"type":"' .. status .. '","spec":' .. spec .. ',"res":' .. res .. '}'
  end
  redis.call('PUBLISH', prefix .. 'events', msg)
  local actor, detail, entry_type = nil, {}, status
  if audit then
    actor = audit.actor
    detail = audit.detail or {}
    -- A rule's decision is written as DECIDED_BY_POLICY, never as ANSWERED (API.md §20).
    if audit.type then entry_type = audit.type end
  end
  if held[7] ~= 'APPROVAL' and held[7] ~= 'CONFIRM' then detail.decision = nil end
  detail.format = held[7]
  audit_append(entry_type, id, actor, audit_via(actor, held[5]), detail, now)
end

local function timed_out(now)
  return '{"status":"TIMED_OUT","answer":null,"answeredBy":null,"answeredAt":null,"closedAt":' .. now .. ',"cancelReason":null}'
end
