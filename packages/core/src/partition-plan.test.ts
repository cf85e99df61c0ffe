import {
  classifyPartitions,
  nextPeriodStart,
  partitionBoundId,
  partitionBoundTime,
  partitionName,
  partitionsCovering,
  partitionsToEnsure,
  periodStart,
  type PartitionPeriod,
  type PartitionRange,
} from './partition-plan';

const DAY_MS = 86_400_000;
const clock = (iso: string) => () => new Date(iso);
// Suffix and bounds of each partition, as compact strings a table can hold.
const plain = (ranges: readonly PartitionRange[]) =>
  ranges.map((r) => `${r.suffix} ${r.from.toISOString()} ${r.to.toISOString()}`);

describe('partition plan: which partitions must exist', () => {
  it.each<[PartitionPeriod, string, number, string[]]>([
    [
      'day',
      '2026-11-26T16:00:00.000Z',
      2 * DAY_MS,
      [
        '20261126 2026-11-26T00:00:00.000Z 2026-11-27T00:00:00.000Z',
        '20261127 2026-11-27T00:00:00.000Z 2026-11-28T00:00:00.000Z',
        '20261128 2026-11-28T00:00:00.000Z 2026-11-29T00:00:00.000Z',
      ],
    ],
    // The last millisecond of a day: tomorrow's partition is needed one millisecond ahead, and the year turns.
    [
      'day',
      '2026-12-31T23:59:59.999Z',
      1,
      [
        '20261231 2026-12-31T00:00:00.000Z 2027-01-01T00:00:00.000Z',
        '20270101 2027-01-01T00:00:00.000Z 2027-01-02T00:00:00.000Z',
      ],
    ],
    // Midnight exactly belongs to the day it starts; nothing ahead: only that day.
    ['day', '2027-01-01T00:00:00.000Z', 0, ['20270101 2027-01-01T00:00:00.000Z 2027-01-02T00:00:00.000Z']],
    // A leap day.
    [
      'day',
      '2028-02-28T12:00:00.000Z',
      DAY_MS,
      [
        '20280228 2028-02-28T00:00:00.000Z 2028-02-29T00:00:00.000Z',
        '20280229 2028-02-29T00:00:00.000Z 2028-03-01T00:00:00.000Z',
      ],
    ],
    // A Thursday: its ISO week began on Monday the 23rd.
    ['week', '2026-11-26T16:00:00.000Z', DAY_MS, ['2026w48 2026-11-23T00:00:00.000Z 2026-11-30T00:00:00.000Z']],
    // Sunday 23:59 is still the week of the Monday before; one minute ahead is the next week.
    [
      'week',
      '2026-11-29T23:59:00.000Z',
      60_000,
      [
        '2026w48 2026-11-23T00:00:00.000Z 2026-11-30T00:00:00.000Z',
        '2026w49 2026-11-30T00:00:00.000Z 2026-12-07T00:00:00.000Z',
      ],
    ],
    // 2026 has 53 ISO weeks: New Year's Day 2027 is in 2026-W53, and 2027-W01 starts on 4 January.
    [
      'week',
      '2027-01-01T08:00:00.000Z',
      3 * DAY_MS,
      [
        '2026w53 2026-12-28T00:00:00.000Z 2027-01-04T00:00:00.000Z',
        '2027w01 2027-01-04T00:00:00.000Z 2027-01-11T00:00:00.000Z',
      ],
    ],
    // 30 December 2024 (a Monday) starts 2025-W01: the week-year runs ahead of the calendar year.
    ['week', '2024-12-31T00:00:00.000Z', 0, ['2025w01 2024-12-30T00:00:00.000Z 2025-01-06T00:00:00.000Z']],
    [
      'month',
      '2026-12-15T10:00:00.000Z',
      20 * DAY_MS,
      [
        '202612 2026-12-01T00:00:00.000Z 2027-01-01T00:00:00.000Z',
        '202701 2027-01-01T00:00:00.000Z 2027-02-01T00:00:00.000Z',
      ],
    ],
    // February of a leap year ends on the 29th; a month ahead of 31 January is March.
    [
      'month',
      '2028-01-31T23:00:00.000Z',
      31 * DAY_MS,
      [
        '202801 2028-01-01T00:00:00.000Z 2028-02-01T00:00:00.000Z',
        '202802 2028-02-01T00:00:00.000Z 2028-03-01T00:00:00.000Z',
        '202803 2028-03-01T00:00:00.000Z 2028-04-01T00:00:00.000Z',
      ],
    ],
  ])('%s at %s, %d ms ahead', (period, now, aheadMs, expected) => {
    expect(plain(partitionsToEnsure(period, clock(now), aheadMs))).toEqual(expected);
  });

  it('leaves no gap and no overlap: each partition starts where the previous ended', () => {
    for (const period of ['day', 'week', 'month'] as const) {
      const ranges = partitionsCovering(period, new Date('2026-01-01T00:00:00Z'), new Date('2028-12-31T00:00:00Z'));
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.from).toEqual(ranges[i - 1]!.to);
      expect(new Set(ranges.map((r) => r.suffix)).size).toBe(ranges.length);
    }
  });

  it('ignores the process time zone and daylight saving: days are 24 hours, bounds UTC midnights', () => {
    const original = process.env.TZ;
    // Europe and the US change clocks in March and October/November; Lord Howe by half an hour.
    const span = [new Date('2026-03-01T00:00:00Z'), new Date('2026-11-30T00:00:00Z')] as const;
    process.env.TZ = 'UTC';
    const inUtc = partitionsCovering('day', ...span);
    try {
      for (const tz of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe']) {
        process.env.TZ = tz;
        const ranges = partitionsCovering('day', ...span);
        expect(plain(ranges)).toEqual(plain(inUtc));
        expect(ranges.every((r) => r.to.getTime() - r.from.getTime() === DAY_MS)).toBe(true);
        // The night Berlin springs forward (01:00 UTC): that day is still one whole UTC day.
        expect(periodStart('day', new Date('2026-03-29T00:59:59Z')).toISOString()).toBe('2026-03-29T00:00:00.000Z');
        expect(periodStart('week', new Date('2026-03-29T23:00:00Z')).toISOString()).toBe('2026-03-23T00:00:00.000Z');
      }
    } finally {
      if (original === undefined) delete process.env.TZ;
      else process.env.TZ = original;
    }
  });

  it('names tables', () => {
    const [range] = partitionsToEnsure('day', clock('2026-11-26T16:00:00Z'), 0);
    expect(partitionName('event_search_keys', range!)).toBe('event_search_keys_p20261126');
  });

  it('refuses a negative or invalid look-ahead and a runaway range', () => {
    expect(() => partitionsToEnsure('day', clock('2026-11-26T00:00:00Z'), -1)).toThrow(RangeError);
    expect(() => partitionsToEnsure('day', clock('2026-11-26T00:00:00Z'), Number.NaN)).toThrow(RangeError);
    expect(() => partitionsToEnsure('day', clock('not a date'), 0)).toThrow(RangeError);
    expect(() => partitionsCovering('day', new Date(0), new Date('2026-11-26T00:00:00Z'))).toThrow(/more than/);
    expect(partitionsCovering('day', new Date('2026-11-27T00:00:00Z'), new Date('2026-11-26T00:00:00Z'))).toEqual([]);
  });
});

describe('partition plan: which partitions are past retention', () => {
  // Four day partitions, 20 to 23 November.
  const days = partitionsCovering('day', new Date('2026-11-20T00:00:00Z'), new Date('2026-11-23T00:00:00Z'));
  const at = (iso: string) => new Date(iso);
  const classes = (cutoffs: (Date | null)[]) =>
    classifyPartitions(days, cutoffs).map((p) => `${p.suffix} ${p.retention}`);

  it.each<[string, (Date | null)[], string[]]>([
    [
      'one cutoff at midnight: the days before it are droppable, the rest retained',
      [at('2026-11-22T00:00:00Z')],
      ['20261120 droppable', '20261121 droppable', '20261122 retained', '20261123 retained'],
    ],
    [
      'a cutoff inside a day: that day is the edge',
      [at('2026-11-21T12:00:00Z')],
      ['20261120 droppable', '20261121 edge', '20261122 retained', '20261123 retained'],
    ],
    [
      'organizations with different retention: droppable only before the earliest, edge up to the latest',
      [at('2026-11-21T00:00:00Z'), at('2026-11-23T00:00:00Z')],
      ['20261120 droppable', '20261121 edge', '20261122 edge', '20261123 retained'],
    ],
    [
      'an organization keeping everything: nothing is droppable by time, old days are the edge',
      [at('2026-11-22T00:00:00Z'), null],
      ['20261120 edge', '20261121 edge', '20261122 retained', '20261123 retained'],
    ],
    ['only organizations keeping everything: all retained', [null], days.map((d) => `${d.suffix} retained`)],
    ['no organizations: all retained', [], days.map((d) => `${d.suffix} retained`)],
    [
      'a cutoff after every partition: all droppable',
      [at('2026-12-01T00:00:00Z')],
      days.map((d) => `${d.suffix} droppable`),
    ],
  ])('%s', (_name, cutoffs, expected) => {
    expect(classes(cutoffs)).toEqual(expected);
  });

  it('classifies weeks and months across the year boundary by the same rule', () => {
    const weeks = partitionsCovering('week', at('2026-12-21T00:00:00Z'), at('2027-01-05T00:00:00Z'));
    expect(classifyPartitions(weeks, [at('2027-01-01T00:00:00Z')]).map((p) => p.retention)).toEqual([
      'droppable',
      'edge',
      'retained',
    ]);
    const months = partitionsCovering('month', at('2026-11-15T00:00:00Z'), at('2027-01-15T00:00:00Z'));
    expect(classifyPartitions(months, [at('2027-01-01T00:00:00Z')]).map((p) => `${p.suffix} ${p.retention}`)).toEqual([
      '202611 droppable',
      '202612 droppable',
      '202701 retained',
    ]);
  });
});

describe('partition plan: bounds as uuids', () => {
  // A UUIDv7 as the uuid package makes it (RFC 9562): 48 bits of milliseconds, version 7, 12 random bits, the
  // variant 10, 62 random bits; `random` picks the random bits' hex digit, so 'f' is the largest of its millisecond.
  const uuid7 = (ms: number, random: string) => {
    const hex = ms.toString(16).padStart(12, '0');
    // The variant's bits 10, then the random digit's two high bits: 8 for '0', b for 'f'.
    const variant = (0b1000 | (parseInt(random, 16) >> 2)).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8)}-7${random.repeat(3)}-${variant}${random.repeat(3)}-${random.repeat(12)}`;
  };

  it("is the uuid of the moment's milliseconds, the rest zeros (relay_uuid7_floor in the migration)", () => {
    expect(partitionBoundId(new Date('2026-12-07T00:00:00Z'))).toBe('01a24dcc-d800-0000-0000-000000000000');
    expect(partitionBoundId(new Date('2026-12-08T00:00:00Z'))).toBe('01a252f3-3400-0000-0000-000000000000');
    expect(partitionBoundId(new Date(0))).toBe('00000000-0000-0000-0000-000000000000');
    expect(partitionBoundTime('01a24dcc-d800-0000-0000-000000000000').toISOString()).toBe('2026-12-07T00:00:00.000Z');
    expect(partitionBoundTime('01A252F3-3400-7ABC-8DEF-0123456789AB').toISOString()).toBe('2026-12-08T00:00:00.000Z');
  });

  it("orders bounds as their moments, across a day, a month and a hex digit's carry", () => {
    const moments = [
      '2026-11-30T23:59:59.999Z',
      '2026-12-01T00:00:00.000Z',
      '2026-12-31T23:59:59.999Z',
      '2027-01-01T00:00:00.000Z',
    ].map((iso) => new Date(iso));
    const bounds = moments.map(partitionBoundId);
    expect([...bounds].sort()).toEqual(bounds);
    expect(new Set(bounds).size).toBe(bounds.length);
    // 0x...fff ms and the next: the carry changes a digit further left, still in order.
    expect(partitionBoundId(new Date(0xfff)) < partitionBoundId(new Date(0x1000))).toBe(true);
  });

  it("puts a UUIDv7 of a moment at or above its period's floor and below the next period's", () => {
    for (const period of ['day', 'week', 'month'] as const) {
      for (const iso of ['2026-12-07T00:00:00.000Z', '2026-12-07T23:59:59.999Z', '2027-02-28T23:59:59.999Z']) {
        const at = new Date(iso);
        const from = periodStart(period, at);
        const floor = partitionBoundId(from);
        const next = partitionBoundId(nextPeriodStart(period, from));
        for (const random of ['0', '7', 'f']) {
          const id = uuid7(at.getTime(), random);
          expect(id >= floor && id < next).toBe(true);
          // Its period's first and last millisecond too.
          expect(uuid7(from.getTime(), random) >= floor).toBe(true);
          expect(uuid7(nextPeriodStart(period, from).getTime() - 1, random) < next).toBe(true);
        }
      }
    }
    expect(uuid7(0x01a24dccd800, 'f')).toBe('01a24dcc-d800-7fff-bfff-ffffffffffff');
    expect(uuid7(0x01a24dccd800, '0')).toBe('01a24dcc-d800-7000-8000-000000000000');
  });

  it('refuses a moment no UUIDv7 can hold', () => {
    expect(() => partitionBoundId(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => partitionBoundId(new Date(-1))).toThrow(RangeError);
    expect(() => partitionBoundTime('not a uuid')).toThrow(RangeError);
  });
});
