import { routedReads, type ReplicaRoute } from './replica-route';

// Where one read goes when the replica fails it; the route's own checks against a real replica: read-replica.test.ts.
function routeOnReplica() {
  const unreachable: unknown[] = [];
  const route: ReplicaRoute = {
    useReplica: () => unreachable.length === 0,
    state: () => ({ status: 'ok', reads: 'replica', lagSeconds: 0, lagBytes: 0 }),
    check: async () => route.state(),
    unreachable: (err) => void unreachable.push(err),
    lost: () => new Promise<void>(() => {}),
    close: () => {},
  };
  return { route, unreachable };
}

const failing = (err: object) => ({
  read: async (): Promise<string> => {
    throw Object.assign(new Error('replica failed'), err);
  },
});
const primary = { read: async () => 'from the primary' };

describe('routedReads', () => {
  it('makes a read the replica canceled for a replay conflict again on the primary, and keeps the replica', async () => {
    const { route, unreachable } = routeOnReplica();
    const reads = routedReads(primary, failing({ code: '40001' }), route);
    expect(await reads.read()).toBe('from the primary');
    expect(unreachable).toEqual([]);
  });

  it('makes a read the replica could not be reached for again on the primary, and leaves the replica', async () => {
    const { route, unreachable } = routeOnReplica();
    const reads = routedReads(primary, failing({ code: 'ECONNREFUSED' }), route);
    expect(await reads.read()).toBe('from the primary');
    expect(unreachable).toHaveLength(1);
    expect(route.useReplica()).toBe(false);
  });

  it('passes on any other error (a bad query fails on the primary too)', async () => {
    const { route, unreachable } = routeOnReplica();
    const reads = routedReads(primary, failing({ code: '42601' }), route);
    await expect(reads.read()).rejects.toThrow('replica failed');
    expect(unreachable).toEqual([]);
  });
});
