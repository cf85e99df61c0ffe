import { describe, expect, it } from 'vitest';
import { BULK_CAP, runBulk, type BulkAnswer, type BulkSelection } from './events-bulk-loop';
import { retrySelectionOf, selectionOf } from './events-bulk-commands';

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `id-${from + i}`);

describe('runBulk', () => {
  it('calls again while the API answers truncated, adding up the events', async () => {
    const answers: BulkAnswer[] = [
      { affected: BULK_CAP, ids: ids(0, BULK_CAP), truncated: true },
      { affected: BULK_CAP, ids: ids(BULK_CAP, BULK_CAP), truncated: true },
      { affected: 5, ids: ids(2 * BULK_CAP, 5), truncated: false },
    ];
    const sent: BulkSelection[] = [];
    const progress: number[] = [];
    const total = await runBulk(
      (selection) => {
        sent.push(selection);
        return Promise.resolve(answers.shift()!);
      },
      { filter: { status: 'failed' } },
      (n) => progress.push(n),
    );
    expect(total.affected).toBe(2 * BULK_CAP + 5);
    expect(total.calls).toBe(3);
    expect(sent).toEqual([0, 1, 2].map(() => ({ filter: { status: 'failed' } })));
    expect(progress).toEqual([BULK_CAP, 2 * BULK_CAP, 2 * BULK_CAP + 5]);
  });

  it('stops when a truncated answer brings only events it already touched', async () => {
    let calls = 0;
    const total = await runBulk(
      () => {
        calls += 1;
        return Promise.resolve({ affected: 2, ids: ['a', 'b'], truncated: true });
      },
      { filter: {}, all: true },
    );
    expect(calls).toBe(2);
    expect(total).toEqual({ affected: 2, ids: ['a', 'b'], calls: 2 });
  });

  it("keeps the selection's destination_id on every chunk of ids", async () => {
    const sent: BulkSelection[] = [];
    await runBulk(
      (selection) => {
        sent.push(selection);
        return Promise.resolve({ affected: 0, ids: [], truncated: false });
      },
      { ids: ids(0, BULK_CAP + 1), destination_id: 'd1' },
    );
    expect(sent.map((s) => s.destination_id)).toEqual(['d1', 'd1']);
  });

  it('sends ids in chunks of the cap, each once', async () => {
    const list = [...ids(0, BULK_CAP + 10), 'id-0'];
    const sizes: number[] = [];
    const total = await runBulk(
      (selection) => {
        const chunk = (selection as { ids: string[] }).ids;
        sizes.push(chunk.length);
        return Promise.resolve({ affected: chunk.length, ids: chunk, truncated: false });
      },
      { ids: list },
    );
    expect(sizes).toEqual([BULK_CAP, 10]);
    expect(total.affected).toBe(BULK_CAP + 10);
  });
});

describe('selectionOf (bulk commands)', () => {
  it('takes ids, filters or --all, exactly one of them', () => {
    expect(selectionOf({ id: ['a', 'b'] })).toEqual({ ids: ['a', 'b'] });
    expect(selectionOf({ status: 'failed' })).toEqual({ filter: { status: 'failed' } });
    expect(selectionOf({ all: true })).toEqual({ filter: {}, all: true });
    expect(() => selectionOf({})).toThrow(/choose the events/);
    expect(() => selectionOf({ id: ['a'], status: 'failed' })).toThrow(/one way only/);
    expect(() => selectionOf({ all: true, source: 'x' })).toThrow(/one way only/);
  });
});

describe('retrySelectionOf (bulk-retry --destination)', () => {
  it("retries the destination's deliveries of the ids, or of the filtered events that have one", () => {
    expect(retrySelectionOf({ status: 'failed' })).toEqual({ filter: { status: 'failed' } });
    expect(retrySelectionOf({ id: ['a'], destination: 'd1' })).toEqual({ ids: ['a'], destination_id: 'd1' });
    expect(retrySelectionOf({ destination: 'd1', deliveryStatus: 'failed' })).toEqual({
      filter: { delivery_status: 'failed', destination_id: 'd1' },
      destination_id: 'd1',
    });
    expect(retrySelectionOf({ destination: 'd1' })).toEqual({ filter: { destination_id: 'd1' }, destination_id: 'd1' });
    expect(retrySelectionOf({ all: true, destination: 'd1' })).toEqual({
      filter: { destination_id: 'd1' },
      destination_id: 'd1',
    });
    expect(() => retrySelectionOf({ id: ['a'], status: 'failed', destination: 'd1' })).toThrow(/one way only/);
  });
});
