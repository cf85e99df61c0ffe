import { createCachedLoader } from './cached-loader';

describe('cached loader', () => {
  it('remembers an answer for cacheMs, shares concurrent misses and forgets failures', async () => {
    let clock = 0;
    const loads: string[] = [];
    let fail = false;
    const load = createCachedLoader({
      load: async (key: string) => {
        loads.push(key);
        if (fail) throw new Error('down');
        return `${key}@${clock}`;
      },
      keyOf: (key) => key,
      cacheMs: 100,
      now: () => clock,
    });
    expect(await Promise.all([load('a'), load('a')])).toEqual(['a@0', 'a@0']);
    clock = 100;
    fail = true;
    await expect(load('a')).rejects.toThrow('down');
    fail = false;
    expect(await load('a')).toBe('a@100');
    expect(loads).toEqual(['a', 'a', 'a']);
  });

  it('reads every time with cacheMs 0 and starts over past maxEntries', async () => {
    let loads = 0;
    const uncached = createCachedLoader({ load: async () => ++loads, keyOf: () => 'k', cacheMs: 0 });
    await uncached();
    await uncached();
    expect(loads).toBe(2);
    const small = createCachedLoader({
      load: async (k: string) => k + ++loads,
      keyOf: (k) => k,
      cacheMs: 1e9,
      maxEntries: 2,
    });
    const first = await small('x');
    await small('y');
    await small('z'); // the third key clears the cache
    expect(await small('x')).not.toBe(first);
  });
});

describe('cached loader forget', () => {
  it("drops one key's answer: the next call loads afresh, other keys stay remembered", async () => {
    let loads = 0;
    const load = createCachedLoader({ load: async (k: string) => `${k}${++loads}`, keyOf: (k) => k, cacheMs: 1e9 });
    expect([await load('a'), await load('b')]).toEqual(['a1', 'b2']);
    load.forget('a');
    expect([await load('a'), await load('b'), await load('a')]).toEqual(['a3', 'b2', 'a3']);
  });
});
