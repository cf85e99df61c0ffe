import { createWorkerFairness } from './fair-gate';

const CONFIG = {
  DELIVERY_CONCURRENCY: 8,
  DELIVERY_TARGET_SHARE_PERCENT: 50,
  DELIVERY_FAIR_RESERVE_PERCENT: 25,
  DELIVERY_FAIR_WAIT_MS: 200,
  DELIVERY_FAIR_WAIT_MAX_MS: 400,
};

const acquireMany = async (gate: ReturnType<ReturnType<typeof createWorkerFairness>['shard']>['gate'], n: number) => {
  const admitted: boolean[] = [];
  for (let i = 0; i < n; i++) admitted.push(await gate.acquire('https://hanging'));
  return admitted.filter(Boolean).length;
};

describe('worker fairness over queue shards', () => {
  it('on one shard, is the whole pool and its reserve, as before sharding', () => {
    const fairness = createWorkerFairness(CONFIG, 1);
    expect(fairness.poolPerShard).toBe(8);
    expect(fairness.jobsPerShard).toBe(10);
  });

  // A rule's events all land on one shard. With one process-wide gate, an origin alone was admitted up to the
  // whole pool (8) while its shard's worker took only its part of the jobs (4): a hanging target held every job of
  // the shard and other rules' events there were never seen. Each shard now keeps a reserve the origin never gets.
  it('splits the pool between shards, and an origin alone on a shard leaves that shard its reserve', async () => {
    const fairness = createWorkerFairness(CONFIG, 3);
    expect(fairness.poolPerShard).toBe(3);
    expect(fairness.jobsPerShard).toBe(4);
    const shard = fairness.shard();
    expect(await acquireMany(shard.gate, 8)).toBe(3);
    expect(fairness.jobsPerShard - 3).toBeGreaterThan(0);
  });

  it("gives each shard a gate of its own: one shard's hanging origin takes nothing of another's pool", async () => {
    const fairness = createWorkerFairness(CONFIG, 2);
    const [first, second] = [fairness.shard(), fairness.shard()];
    expect(await acquireMany(first.gate, 8)).toBe(4);
    expect(await acquireMany(second.gate, 8)).toBe(4);
  });

  it("raises only its own worker's jobs by the slots an origin holds above its share", async () => {
    const fairness = createWorkerFairness(CONFIG, 2);
    const shard = fairness.shard();
    const other = fairness.shard();
    const worker = { concurrency: fairness.jobsPerShard };
    const otherWorker = { concurrency: fairness.jobsPerShard };
    shard.attach(worker);
    other.attach(otherWorker);
    await acquireMany(shard.gate, 4);
    // Another origin arrives through the reserve: the hanging one now holds 2 above its share of 2.
    expect(await shard.gate.acquire('https://healthy')).toBe(true);
    expect(worker.concurrency).toBe(fairness.jobsPerShard + 2);
    expect(otherWorker.concurrency).toBe(fairness.jobsPerShard);
  });
});
