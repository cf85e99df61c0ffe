import { Group, Text } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import type { AnchorHTMLAttributes, Ref } from 'react';
import type { EVENT_STATUSES } from '../events/events-search';
import { bucketLabel, bucketSpan, countTicks, failureRate, type OverviewWindow } from './overview-window';

type Status = (typeof EVENT_STATUSES)[number];
export type BucketCounts = Record<Status, number> & { start: string; total: number };

// One colour per event status, as the status badges; delivered at the bottom of a bar, failures right above it.
export const STATUS_COLORS: Record<Status, string> = {
  delivered: 'var(--mantine-color-green-6)',
  failed: 'var(--mantine-color-red-6)',
  queued: 'var(--mantine-color-blue-6)',
  paused: 'var(--mantine-color-yellow-6)',
  ignored: 'var(--mantine-color-gray-5)',
};
const STACK: Status[] = ['delivered', 'failed', 'queued', 'paused', 'ignored'];
const RATE_COLOR = 'var(--mantine-color-grape-7)';

// A router link as an SVG <a> (React creates it in the SVG namespace inside <svg>): a bar is a link.
const SvgLink = createLink((props: AnchorHTMLAttributes<HTMLAnchorElement> & { ref?: Ref<HTMLAnchorElement> }) => (
  <a {...props} />
));

const W = 800;
const H = 240;
const PAD = { left: 44, right: 48, top: 10, bottom: 28 };
const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;
const pct = (rate: number) => `${Math.round(rate * 100)} %`;

interface Props {
  series: BucketCounts[];
  bucketMs: number;
  window: OverviewWindow;
}

/**
 * Events by status as one stacked bar per bucket on a count axis from 0 (left), and the failure rate of each bucket
 * as a line on its own 0–100 % axis (right). Plain SVG: every bar segment is a link to the events it counts.
 */
export function StatusChart({ series, bucketMs, window }: Props) {
  const ticks = countTicks(Math.max(0, ...series.map((b) => b.total)));
  const top = ticks[ticks.length - 1]!;
  const slot = plotW / Math.max(1, series.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (count: number) => PAD.top + plotH - (count / top) * plotH;
  const yRate = (rate: number) => PAD.top + plotH - rate * plotH;
  const labelEvery = Math.ceil(series.length / 8);
  // The line is broken where a bucket has nothing finished: no rate is not a rate of 0.
  const rates = series.map((b, i) => ({ i, b, rate: failureRate(b) }));
  const path = rates
    .map(({ i, rate }, k) => {
      if (rate === null) return '';
      const joined = k > 0 && rates[k - 1]!.rate !== null;
      return `${joined ? 'L' : 'M'}${(PAD.left + slot * (i + 0.5)).toFixed(1)},${yRate(rate).toFixed(1)}`;
    })
    .filter(Boolean)
    .join(' ');
  return (
    <>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="group"
        aria-label="Events by status per bucket, and the failure rate"
        data-testid="status-chart"
        style={{ display: 'block', fontSize: 11 }}
      >
        {ticks.map((t) => (
          <g key={t}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} stroke="var(--mantine-color-default-border)" />
            <text x={PAD.left - 6} y={y(t) + 4} textAnchor="end" fill="var(--mantine-color-dimmed)">
              {t}
            </text>
          </g>
        ))}
        {[0, 0.5, 1].map((r) => (
          <text key={r} x={W - PAD.right + 6} y={yRate(r) + 4} fill={RATE_COLOR}>
            {pct(r)}
          </text>
        ))}
        {series.map((b, i) => {
          const span = bucketSpan(b.start, bucketMs);
          const when = `${new Date(span.from).toLocaleString()} – ${new Date(span.to).toLocaleTimeString()}`;
          let base = 0;
          return (
            <g key={b.start} data-testid="bucket" data-start={b.start}>
              {STACK.filter((status) => b[status] > 0).map((status) => {
                const y0 = y(base);
                base += b[status];
                return (
                  <SvgLink
                    key={status}
                    to="/events"
                    search={{ status, ...span }}
                    aria-label={`${b[status]} ${status}, ${when}`}
                    data-status={status}
                    data-count={b[status]}
                  >
                    <title>{`${b[status]} ${status}, ${when}`}</title>
                    <rect
                      x={PAD.left + slot * i + (slot - barW) / 2}
                      y={y(base)}
                      width={barW}
                      height={y0 - y(base)}
                      fill={STATUS_COLORS[status]}
                    />
                  </SvgLink>
                );
              })}
              {i % labelEvery === 0 ? (
                <text x={PAD.left + slot * (i + 0.5)} y={H - 8} textAnchor="middle" fill="var(--mantine-color-dimmed)">
                  {bucketLabel(b.start, window)}
                </text>
              ) : null}
            </g>
          );
        })}
        <path d={path} fill="none" stroke={RATE_COLOR} strokeWidth={2} data-testid="failure-rate-line" />
        {rates.map(({ i, b, rate }) =>
          rate === null ? null : (
            <circle
              key={b.start}
              cx={PAD.left + slot * (i + 0.5)}
              cy={yRate(rate)}
              r={3}
              fill={RATE_COLOR}
              data-testid="failure-rate-point"
              data-rate={rate}
            >
              <title>{`failure rate ${pct(rate)} (${b.failed} of ${b.delivered + b.failed} finished)`}</title>
            </circle>
          ),
        )}
      </svg>
      <Group gap="md" mt="xs">
        {STACK.map((status) => (
          <Group key={status} gap={4}>
            <svg width={10} height={10} aria-hidden>
              <rect width={10} height={10} fill={STATUS_COLORS[status]} />
            </svg>
            <Text size="xs">{status}</Text>
          </Group>
        ))}
        <Group gap={4}>
          <svg width={14} height={10} aria-hidden>
            <line x1={0} x2={14} y1={5} y2={5} stroke={RATE_COLOR} strokeWidth={2} />
          </svg>
          <Text size="xs">failure rate: failed / (delivered + failed), right axis</Text>
        </Group>
      </Group>
    </>
  );
}
