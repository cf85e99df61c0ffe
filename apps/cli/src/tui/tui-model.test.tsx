import { describe, expect, it } from 'vitest';
import { eventRow } from './fake-api.test-support';
import { applyFeedMessage, headerCells, rowCells, windowStart } from './tui-model';

describe('applyFeedMessage', () => {
  const rows = [eventRow(1), eventRow(2)];
  const created = (n: number) =>
    ({ type: 'event.created', id: '1', data: { ...eventRow(n), status: 'queued' as const } }) as const;

  it('puts a new event first, once, and asks for a reload instead when a filter is on', () => {
    const added = applyFeedMessage(rows, created(3), false);
    expect(added.rows.map((r) => r.id)).toEqual([eventRow(3).id, eventRow(1).id, eventRow(2).id]);
    expect(added.rows[0]).toMatchObject({ status: 'queued', attempt_count: 0 });
    expect(applyFeedMessage(added.rows, created(3), false).rows).toHaveLength(3);
    expect(applyFeedMessage(rows, created(3), true)).toEqual({ rows, reload: true });
  });

  it('updates status and attempts in place, removes deleted events, reloads after a truncated replay', () => {
    const id = eventRow(2).id;
    const failed = applyFeedMessage(
      rows,
      { type: 'event.status', id: '2', data: { id, status: 'failed', failure_reason: 'http_500', acknowledged: true } },
      false,
    ).rows;
    expect(failed[1]).toMatchObject({ status: 'failed', failure_reason: 'http_500', acknowledged: true });
    const attempt = {
      event_id: id,
      attempt_number: 4,
      kind: 'main' as const,
      hook_id: null,
      target_url: 'x',
      response_status: 500,
      error: null,
      duration_ms: 1,
      finished_at: '',
    };
    expect(applyFeedMessage(rows, { type: 'attempt', id: '3', data: attempt }, false).rows[1]!.attempt_count).toBe(4);
    const hook = { ...attempt, kind: 'hook' as const, attempt_number: 9 };
    expect(applyFeedMessage(rows, { type: 'attempt', id: '3', data: hook }, false).rows[1]!.attempt_count).toBe(1);
    expect(applyFeedMessage(rows, { type: 'event.deleted', id: '4', data: { id } }, false).rows).toHaveLength(1);
    expect(applyFeedMessage(rows, { type: 'replay.truncated', id: undefined, data: {} }, false).reload).toBe(true);
  });
});

describe('row layout', () => {
  it('fills exactly the width at 80 columns and below, cutting long sources with …', () => {
    const row = eventRow(1, {
      source: 'a-very-long-source-name-from-some-rule',
      status: 'failed',
      acknowledged: true,
    });
    for (const width of [80, 60, 100, 140]) {
      const cells = rowCells(row, width, Date.now());
      expect(2 + cells.status.length + cells.rest.length).toBe(width);
      const head = headerCells(width);
      expect(2 + head.status.length + head.rest.length).toBe(width);
    }
    const at80 = rowCells(row, 80, Date.now());
    expect(at80.status.trim()).toBe('failed/ack');
    expect(at80.rest).toContain('a-very-long-sou…');
    expect(at80.rest).toContain(row.id);
    expect(headerCells(80).rest).not.toContain('REASON');
  });

  it('shows the failure reason in a last column when the terminal is wide', () => {
    const row = eventRow(1, { status: 'failed', failure_reason: 'retries_exhausted' });
    expect(headerCells(100).rest).toMatch(/AGE REASON/);
    expect(rowCells(row, 120, Date.now()).rest).toMatch(/ago retries_exhausted\s*$/);
  });

  it('scrolls the window only as far as needed to keep the selection visible', () => {
    expect(windowStart(0, 0, 10)).toBe(0);
    expect(windowStart(9, 0, 10)).toBe(0);
    expect(windowStart(10, 0, 10)).toBe(1);
    expect(windowStart(3, 5, 10)).toBe(3);
  });
});
