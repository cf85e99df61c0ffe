import { ledger } from './ledger.mjs';

// The fan-out bench's verdict rests on this count: a delivery that never arrived, arrived twice (the same
// webhook-id again, or a second webhook-id for the same event at the same target) or arrived where its filter
// should have kept it away must each show.
describe('the fan-out ledger of one target', () => {
  it('counts nothing wrong when each expected event arrived once', () => {
    const receipts = [
      ['d1', 0, 1, 'e1'],
      ['d2', 0, 1, 'e2'],
    ];
    expect(ledger(receipts, new Set(['e1', 'e2']))).toEqual({
      expected: 2,
      received: 2,
      lost: 0,
      duplicates: 0,
      misrouted: 0,
    });
  });

  it('counts an expected event that never arrived as lost', () => {
    expect(ledger([['d1', 0, 1, 'e1']], new Set(['e1', 'e2'])).lost).toBe(1);
  });

  it('counts a webhook-id seen twice and a second webhook-id for one event as duplicates', () => {
    const receipts = [
      ['d1', 0, 2, 'e1'],
      ['d2', 0, 1, 'e2'],
      ['d3', 0, 1, 'e2'],
    ];
    expect(ledger(receipts, new Set(['e1', 'e2'])).duplicates).toBe(2);
  });

  it('counts an event the target should not have received as misrouted', () => {
    const receipts = [
      ['d1', 0, 1, 'e1'],
      ['d2', 0, 1, 'e9'],
    ];
    expect(ledger(receipts, new Set(['e1']))).toMatchObject({ lost: 0, misrouted: 1 });
  });
});
