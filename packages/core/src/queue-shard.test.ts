import { MAX_QUEUE_SHARDS, parseQueueShardList, queueShardOf } from './queue-shard';

describe('queueShardOf', () => {
  it('is 0 for one shard and for events without a rule', () => {
    expect(queueShardOf('rul_abc', 1)).toBe(0);
    expect(queueShardOf(null, 8)).toBe(0);
  });

  it('is stable: fixed answers for fixed ids (the api, the workers and the sweeper must agree across versions)', () => {
    // FNV-1a 32-bit: "a" = 0xe40c292c, "rul_1" = 0x5b5fad30 (0 of 4 shards).
    expect(queueShardOf('a', 1_000_000)).toBe(0xe40c292c % 1_000_000);
    expect(queueShardOf('rul_1', 4)).toBe(0x5b5fad30 % 4);
  });

  it('stays within 0 … count − 1 and spreads ids over every shard', () => {
    const counts = new Array<number>(4).fill(0);
    for (let i = 0; i < 4_000; i++) counts[queueShardOf(`rul_${i.toString(36)}`, 4)]!++;
    for (const n of counts) expect(n).toBeGreaterThan(800);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4_000);
  });

  it('refuses a count below 1 or not an integer', () => {
    expect(() => queueShardOf('x', 0)).toThrow(RangeError);
    expect(() => queueShardOf('x', 1.5)).toThrow(RangeError);
  });
});

describe('parseQueueShardList', () => {
  it('is every shard when unset or blank', () => {
    expect(parseQueueShardList(undefined, 3)).toEqual([0, 1, 2]);
    expect(parseQueueShardList('  ', 2)).toEqual([0, 1]);
  });

  it('reads lists and ranges, sorted and without repeats', () => {
    expect(parseQueueShardList('2,0', 4)).toEqual([0, 2]);
    expect(parseQueueShardList('0-2, 1,6', 4)).toEqual([0, 1, 2, 6]);
  });

  it('answers an error for anything else', () => {
    expect(parseQueueShardList('a', 4)).toMatch(/not a shard/);
    expect(parseQueueShardList('3-1', 4)).toMatch(/empty range/);
    expect(parseQueueShardList(String(MAX_QUEUE_SHARDS), 4)).toMatch(/past the most/);
  });
});
