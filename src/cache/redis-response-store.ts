/**
 * The response cache in Redis, shared by every instance: answers, per-collection generations and the write sequence
 * all live there, and each operation is one Lua script (atomic, one round trip), so a write acknowledged by one
 * instance is never followed by a stale answer on another. Keys: `<ns>:entry:<hash>` (expiring after the TTL),
 * `<ns>:gen:<collection>`, `<ns>:seq`. An entry is `<tag> <generation> ...\n<body>`.
 */
import type { RedisClient } from '../bus/redis-connection.js';
import { ALL_TAG, type ResponseStore } from './response-store.js';

const LOOKUP = `
local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
local v = redis.call('GET', KEYS[1])
if not v then return {seq} end
local nl = string.find(v, '\\n', 1, true)
if not nl then return {seq} end
local t = nil
for w in string.gmatch(string.sub(v, 1, nl - 1), '%S+') do
  if t == nil then t = w else
    if (redis.call('GET', ARGV[1] .. t) or '0') ~= w then return {seq} end
    t = nil
  end
end
return {seq, string.sub(v, nl + 1)}
`;

const STORE = `
local head = {}
for i = 5, #ARGV do
  local g = redis.call('GET', ARGV[1] .. ARGV[i]) or '0'
  if tonumber(g) > tonumber(ARGV[2]) then return 0 end
  head[#head + 1] = ARGV[i] .. ' ' .. g
end
redis.call('SET', KEYS[1], table.concat(head, ' ') .. '\\n' .. ARGV[4], 'PX', ARGV[3])
return 1
`;

const BUMP = `
local s = redis.call('INCR', KEYS[1])
for i = 2, #ARGV do redis.call('SET', ARGV[1] .. ARGV[i], s) end
return s
`;

export class RedisResponseStore implements ResponseStore {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace: string,
    private readonly ttlMs: number,
  ) {}

  async lookup(key: string): Promise<{ body: string | undefined; sequence: number }> {
    const result = (await this.client.eval(LOOKUP, {
      keys: [this.entryKey(key), `${this.namespace}:seq`],
      arguments: [`${this.namespace}:gen:`],
    })) as [number, string?];
    return { sequence: Number(result[0]), body: result[1] };
  }

  async store(key: string, body: string, tags: readonly string[], sequence: number): Promise<void> {
    await this.client.eval(STORE, {
      keys: [this.entryKey(key)],
      arguments: [`${this.namespace}:gen:`, String(sequence), String(this.ttlMs), body, ALL_TAG, ...tags],
    });
  }

  async bump(tags: readonly string[]): Promise<void> {
    await this.client.eval(BUMP, { keys: [`${this.namespace}:seq`], arguments: [`${this.namespace}:gen:`, ...tags] });
  }

  async close(): Promise<void> {}

  private entryKey(key: string): string {
    return `${this.namespace}:entry:${key}`;
  }
}
