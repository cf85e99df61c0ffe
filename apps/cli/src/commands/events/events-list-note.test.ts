import { describe, expect, it } from 'vitest';
import { pageNote } from './events-list-command';

describe('events list page note', () => {
  it('gives the exact count, and says "about" when the API estimated it', () => {
    expect(pageNote({ page: 1, pages: 3, total: 120, total_exact: true })).toBe('page 1 of 3 (120 events)');
    expect(pageNote({ page: 2, pages: 24_692, total: 1_234_567, total_exact: false })).toBe(
      'page 2 of 24692 (about 1234567 events)',
    );
  });
});
