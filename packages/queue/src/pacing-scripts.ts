// The pacing limiter's Redis scripts. They live in TypeScript strings, not .lua files, because the apps are
// bundled by esbuild and a file read at run time would not travel with the bundle.
//
// Every script touches the keys of ONE pacing key only (its state hash, its lease set and its waiter set), all under
// the same hash tag, so that each runs on a single Redis Cluster slot. Times are Redis `TIME` in microseconds: every
// worker process shares that one clock, whatever their own clocks say. The state hash holds:
//   tat       GCRA theoretical arrival time (µs)          hold      Retry-After hold: nothing granted before (µs)
//   wq        the wake-up cursor handed to waiters (µs)   eff       effective limit while halved (absent: configured)
//   ok        successes counted towards the next step    halved    when the last halving happened (µs)
//   lim, per  the configured limit and period (ms), kept for `state`
// The waiter set holds the deliveries refused and waiting (their job ids), scored by when they are forgotten:
// their wake-up plus a grace, so that one whose worker crashed (it never asks again) ages out.

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
`;

// Keeps the state hash for `ttl` ms past the later of its GCRA and hold horizons, never shortening its life.
const KEEP = `
local function keep(key, now, horizon, ttl)
  local ms = math.floor(math.max(horizon - now, 0) / 1000) + ttl
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

// Records a refused waiter (ARGV: id, '' for none) until its wake-up plus the grace (ms), never shortening the set's life.
const WAIT = `
local function waiting(key, now, wait, id, grace)
  if id == '' then return end
  local forget = now + wait + grace * 1000
  redis.call('ZADD', key, string.format('%.0f', forget), id)
  local ms = math.floor((forget - now) / 1000) + 1
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * KEYS: state, leases, waiters. ARGV: limit (0: no rate), period ms, burst, max concurrency (0: none), lease id,
 * lease ttl ms, concurrency retry ms, state ttl ms, waiter id ('' for none), waiter grace ms.
 * Returns { granted 0|1, wait µs, reason, now µs, effective limit (string, '' without a rate), in flight }.
 */
export const ACQUIRE = `${NOW}${KEEP}${WAIT}
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2]) * 1000
local burst = tonumber(ARGV[3])
local maxc = tonumber(ARGV[4])
local st = redis.call('HMGET', KEYS[1], 'tat', 'hold', 'eff', 'wq')
local eff = ''
if limit > 0 then
  eff = math.min(tonumber(st[3]) or limit, limit)
end
local hold = tonumber(st[2])
if hold and hold > now then
  waiting(KEYS[3], now, hold - now, ARGV[9], tonumber(ARGV[10]))
  return {0, hold - now, 'hold', now, tostring(eff), 0}
end
local inflight = 0
if maxc > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  inflight = redis.call('ZCARD', KEYS[2])
  if inflight >= maxc then
    -- A slot frees when a holder releases (unknown) or its lease expires (known): ask again soon, or then.
    local wait = tonumber(ARGV[7]) * 1000
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    if first[2] then wait = math.min(wait, tonumber(first[2]) - now) end
    wait = math.max(wait, 1000)
    waiting(KEYS[3], now, wait, ARGV[9], tonumber(ARGV[10]))
    return {0, wait, 'concurrency', now, tostring(eff), inflight}
  end
end
local newtat = nil
if limit > 0 then
  -- GCRA: one grant every T; up to b at once after a quiet spell. A halved rate halves the burst too.
  local T = period / eff
  local b = math.max(1, math.floor(burst * eff / limit))
  local tat = math.max(tonumber(st[1]) or now, now)
  local allowAt = tat - T * (b - 1)
  if allowAt > now then
    -- Waiters are handed successive slots (the cursor), so that a queue of them does not wake all at once.
    local wake = math.max(allowAt, tonumber(st[4]) or 0)
    redis.call('HSET', KEYS[1], 'wq', string.format('%.3f', wake + T))
    keep(KEYS[1], now, wake + T, tonumber(ARGV[8]))
    waiting(KEYS[3], now, wake - now, ARGV[9], tonumber(ARGV[10]))
    return {0, wake - now, 'rate', now, tostring(eff), inflight}
  end
  newtat = tat + T
end
if maxc > 0 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]) * 1000, ARGV[5])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6])) end
  inflight = inflight + 1
end
if newtat then
  redis.call('HSET', KEYS[1], 'tat', string.format('%.3f', newtat), 'lim', ARGV[1], 'per', ARGV[2])
  keep(KEYS[1], now, newtat, tonumber(ARGV[8]))
end
if ARGV[9] ~= '' then redis.call('ZREM', KEYS[3], ARGV[9]) end
return {1, 0, 'granted', now, tostring(eff), inflight}
`;

/**
 * KEYS: waiters. ARGV: waiter id, wait ms, grace ms. A refusal answered from the process's known holds (no
 * ACQUIRE ran) still records its waiter: holds are rare, so this costs nothing on unheld keys.
 */
export const WAITER = `${NOW}${WAIT}
waiting(KEYS[1], now, tonumber(ARGV[2]) * 1000, ARGV[1], tonumber(ARGV[3]))
return 1
`;

/** KEYS: waiters. ARGV: waiter id. A waiter granted without ACQUIRE (an unpaced key whose hold ended). */
export const UNWAIT = `return redis.call('ZREM', KEYS[1], ARGV[1])`;

/** KEYS: leases. ARGV: lease id. */
export const RELEASE = `return redis.call('ZREM', KEYS[1], ARGV[1])`;

/**
 * KEYS: state, hold index. ARGV: hold ms (already capped), channel, pacing key, state ttl ms.
 * A longer hold already in place stays. Returns { held until µs, now µs }.
 * The index is a second key (its own slot): it is written by a separate command, see `pacing-limiter.ts`.
 */
export const HOLD = `${NOW}${KEEP}
local untilUs = now + tonumber(ARGV[1]) * 1000
local cur = tonumber(redis.call('HGET', KEYS[1], 'hold'))
if cur and cur > untilUs then untilUs = cur end
redis.call('HSET', KEYS[1], 'hold', string.format('%.0f', untilUs))
keep(KEYS[1], now, untilUs, tonumber(ARGV[4]))
redis.call('PUBLISH', ARGV[2], cjson.encode({ key = ARGV[3], ms = math.floor((untilUs - now) / 1000) }))
return {untilUs, now}
`;

/**
 * KEYS: the hold index. ARGV: pacing key, held until µs. Kept apart from HOLD so that each script stays on one slot.
 */
export const INDEX_HOLD = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local cur = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not cur or cur < tonumber(ARGV[2]) then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.floor((tonumber(last[2]) - now) / 1000) + 1000)
return 1
`;

/** KEYS: the hold index. Returns { key, remaining ms, ... } of the holds still running. */
export const LOAD_HOLDS = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local rows = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  out[#out + 1] = rows[i]
  out[#out + 1] = math.floor((tonumber(rows[i + 1]) - now) / 1000)
end
return out
`;

/**
 * KEYS: state. ARGV: configured limit, floor, cooldown ms, state ttl ms.
 * Halves the effective limit (not below the floor) unless it was halved less than the cooldown ago: the 429s of
 * deliveries already in flight are one signal, not several. Returns { effective (string), halved 0|1 }.
 */
export const HALVE = `${NOW}${KEEP}
local limit = tonumber(ARGV[1])
local st = redis.call('HMGET', KEYS[1], 'eff', 'halved')
local eff = math.min(tonumber(st[1]) or limit, limit)
local last = tonumber(st[2])
if last and now - last < tonumber(ARGV[3]) * 1000 then return {tostring(eff), 0} end
local floor = math.min(tonumber(ARGV[2]), limit)
local nxt = math.max(eff / 2, floor)
redis.call('HSET', KEYS[1], 'eff', tostring(nxt), 'halved', string.format('%.0f', now), 'ok', 0)
keep(KEYS[1], now, now, tonumber(ARGV[4]))
return {tostring(nxt), nxt < eff and 1 or 0}
`;

/**
 * KEYS: state. ARGV: configured limit, step (fraction of the configured limit).
 * Counts one success while halved; after a window of ceil(effective) successes (one period's worth at the
 * current rate) the effective limit grows by step × configured, back up to the configured limit.
 * Returns the effective limit (string).
 */
export const RESTORE = `
local limit = tonumber(ARGV[1])
local raw = redis.call('HGET', KEYS[1], 'eff')
if not raw then return tostring(limit) end
local eff = tonumber(raw)
if eff >= limit then
  redis.call('HDEL', KEYS[1], 'eff', 'ok', 'halved')
  return tostring(limit)
end
local ok = redis.call('HINCRBY', KEYS[1], 'ok', 1)
if ok >= math.max(1, math.ceil(eff)) then
  eff = eff + limit * tonumber(ARGV[2])
  if eff >= limit - 1e-9 then
    redis.call('HDEL', KEYS[1], 'eff', 'ok')
    return tostring(limit)
  end
  redis.call('HSET', KEYS[1], 'eff', tostring(eff), 'ok', 0)
end
return tostring(eff)
`;

/**
 * KEYS: state, leases, waiters. Drops the waiters past their grace.
 * Returns { lim, per, eff, hold µs or '', in flight, now µs, waiting }.
 */
export const STATE = `${NOW}
local st = redis.call('HMGET', KEYS[1], 'lim', 'per', 'eff', 'hold')
local inflight = redis.call('ZCOUNT', KEYS[2], '(' .. string.format('%.0f', now), '+inf')
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local waiters = redis.call('ZCARD', KEYS[3])
return {st[1] or '', st[2] or '', st[3] or '', st[4] or '', inflight, now, waiters}
`;
