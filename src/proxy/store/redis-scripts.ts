/** The Lua scripts of the Redis store: each runs as one atomic step on the server. */

/** Replaces the value only when it still equals ARGV[1]; keeps the TTL unless a new one is given. */
export const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[3] ~= '' then
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  else
    redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  end
  return 1
end
return 0`;

/** INCR, and PEXPIRE when this call created the key: atomic, so a counter never lives forever. */
export const INCR_WITH_TTL = `
local n = redis.call('INCR', KEYS[1])
if n == 1 and ARGV[1] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n`;

/**
 * `ProxyStore.commit`: KEYS[1] is the record; ARGV[1] '1' when it must hold ARGV[2] ('0': be absent), ARGV[3]
 * the new value, ARGV[4] its TTL ('' keeps the TTL), ARGV[5] the number of conditions. KEYS[2 .. 1 + n] are
 * the conditions' keys, each with two ARGV from ARGV[6]: '1' and the value it must hold, or '0' (be absent).
 * Then one side write per remaining key, three ARGV each: operation, value or member, TTL (or '').
 */
export const COMMIT = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
local n = tonumber(ARGV[5])
for i = 1, n do
  local value = redis.call('GET', KEYS[1 + i])
  if ARGV[4 + 2 * i] == '1' then
    if value ~= ARGV[5 + 2 * i] then return 0 end
  elseif value then
    return 0
  end
end
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
elseif current then
  redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
else
  redis.call('SET', KEYS[1], ARGV[3])
end
for i = 2 + n, #KEYS do
  local base = 6 + 2 * n + (i - 2 - n) * 3
  local op, arg, ttl = ARGV[base], ARGV[base + 1], ARGV[base + 2]
  if op == 'set' then
    if ttl ~= '' then redis.call('SET', KEYS[i], arg, 'PX', ttl) else redis.call('SET', KEYS[i], arg) end
  elseif op == 'setIfAbsent' then
    if ttl ~= '' then redis.call('SET', KEYS[i], arg, 'PX', ttl, 'NX') else redis.call('SET', KEYS[i], arg, 'NX') end
  elseif op == 'addToSet' then
    redis.call('SADD', KEYS[i], arg)
    if ttl ~= '' then redis.call('PEXPIRE', KEYS[i], ttl) end
  elseif op == 'removeFromSet' then
    redis.call('SREM', KEYS[i], arg)
  end
end
return 1`;
