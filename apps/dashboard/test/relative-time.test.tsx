import { MantineProvider } from '@mantine/core';
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RelativeTime, TICK_MS } from '../src/components/relative-time';

afterEach(() => vi.useRealTimers());

describe('RelativeTime', () => {
  it('moves on while the page stays open, every row on one shared timer', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-26T12:00:03Z') });
    const setInterval = vi.spyOn(globalThis, 'setInterval');
    const view = render(
      <MantineProvider>
        <RelativeTime iso="2026-11-26T12:00:00Z" />
        <RelativeTime iso="2026-11-26T11:59:00Z" />
      </MantineProvider>,
    );
    expect(screen.getByText('3 seconds ago')).toBeInTheDocument();
    expect(screen.getByText('1 minute ago')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(2 * TICK_MS);
    });
    expect(screen.getByText('5 seconds ago')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(60 * TICK_MS);
    });
    expect(screen.getByText('2 minutes ago')).toBeInTheDocument();
    expect(setInterval).toHaveBeenCalledTimes(1);
    // Nothing left showing a relative time: the clock stops.
    view.unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
