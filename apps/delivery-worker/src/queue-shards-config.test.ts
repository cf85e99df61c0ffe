import { consumedShards, parseWorkerConfig } from './config';

// REDIS_QUEUE_SHARDS and WORKER_QUEUE_SHARDS (docs/operations.md "Queue shards"): which shards a worker consumes.
describe('the shards a worker consumes', () => {
  it('is every shard by default, one with the defaults', () => {
    expect(consumedShards(parseWorkerConfig({}))).toEqual([0]);
    expect(consumedShards(parseWorkerConfig({ REDIS_QUEUE_SHARDS: '4' }))).toEqual([0, 1, 2, 3]);
  });

  it('is the WORKER_QUEUE_SHARDS list, which may name a shard past the count (to drain it)', () => {
    expect(consumedShards(parseWorkerConfig({ REDIS_QUEUE_SHARDS: '4', WORKER_QUEUE_SHARDS: '0,2' }))).toEqual([0, 2]);
    expect(consumedShards(parseWorkerConfig({ REDIS_QUEUE_SHARDS: '2', WORKER_QUEUE_SHARDS: '2-3' }))).toEqual([2, 3]);
  });

  it('refuses to start with a malformed list or a shard count of 0', () => {
    expect(() => parseWorkerConfig({ WORKER_QUEUE_SHARDS: 'one' })).toThrow(/WORKER_QUEUE_SHARDS/);
    expect(() => parseWorkerConfig({ REDIS_QUEUE_SHARDS: '0' })).toThrow(/REDIS_QUEUE_SHARDS/);
  });
});
