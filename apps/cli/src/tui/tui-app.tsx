// `relay tui`: the full-screen terminal UI. Loaded only by that command (a chunk beside relay.mjs), so ink and
// React cost the other commands nothing.
import { Box, render, useApp } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { Connection } from '../context';
import { detailLines } from './detail-lines';
import { EventDetailPanel } from './event-detail';
import { EventList } from './event-list';
import { HelpPanel } from './help-panel';
import { StatsPanel } from './stats-panel';
import { Footer, Header } from './status-bar';
import { errorNotice, loadDetail, loadOrganization } from './tui-actions';
import { windowStart } from './tui-model';
import { ThemeContext, themeFor } from './tui-theme';
import { selectedIndexOf, useUiState } from './ui-state';
import { useEvents, type OpenStream } from './use-events';
import { useTerminalSize } from './use-terminal-size';
import { useTuiKeys } from './use-tui-keys';

export interface TuiAppProps {
  connection: Connection;
  color: boolean;
  /** Fixed size (tests); the terminal's otherwise. */
  columns?: number;
  rows?: number;
  /** The live stream (tests drive it); openEventStream otherwise. */
  openStream?: OpenStream;
}

export function TuiApp({ connection, color, columns, rows: fixedRows, openStream }: TuiAppProps) {
  const { exit } = useApp();
  const size = useTerminalSize({ columns, rows: fixedRows });
  const { ui, update } = useUiState();
  const state = ui();
  const events = useEvents(connection, state.search, openStream);
  const start = useRef(0);
  const [organization, setOrganization] = useState('…');
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    loadOrganization(connection).then(setOrganization, () => setOrganization('-'));
    // Ages ("3m ago") move on by themselves.
    const tick = setInterval(() => setNow(Date.now()), 5_000);
    return () => clearInterval(tick);
  }, [connection]);

  // The selection follows its event when new ones arrive above it; a removed one leaves it at the same place.
  // Settled from the latest state, never from this render's (a key may have moved it since).
  const selected = selectedIndexOf(events.rows, state);
  useEffect(() => {
    const rows = events.latest();
    const index = selectedIndexOf(rows, ui());
    const id = rows[index]?.id;
    if (id !== ui().selectedId || index !== ui().selectedIndex) update({ selectedId: id, selectedIndex: index });
  });

  // Header, footer (2 lines) and one spare line: ink redraws the whole screen when output fills the terminal.
  const bodyHeight = Math.max(3, size.rows - 4);
  start.current = windowStart(selected, start.current, bodyHeight - 1);

  // The open detail reloads when the live stream changes its event (a retry's new attempts, an acknowledgement).
  const detailId = state.detail?.id;
  const detailRow = detailId ? events.rows.find((r) => r.id === detailId) : undefined;
  const version = detailRow ? `${detailRow.status}/${detailRow.attempt_count}/${detailRow.acknowledged}` : '';
  useEffect(() => {
    if (!detailId) return;
    const stillOpen = () => ui().detail?.id === detailId;
    loadDetail(connection, detailId).then(
      (detail) => stillOpen() && update({ detail: { id: detailId, lines: detailLines(detail) } }),
      (error: unknown) =>
        stillOpen() && update({ detail: { id: detailId, error: errorNotice(error, connection.baseUrl).text } }),
    );
  }, [connection, detailId, version, ui, update]);

  useTuiKeys({ connection, events, ui, update, pageSize: bodyHeight - 1, quit: () => exit() });

  const width = size.columns;
  const { screen } = state;
  return (
    <ThemeContext.Provider value={themeFor(color)}>
      <Box flexDirection="column" width={width}>
        <Header
          baseUrl={connection.baseUrl}
          organization={organization}
          stream={events.stream}
          filter={state.search}
          count={events.rows.length}
          total={events.total}
          totalExact={events.totalExact}
          width={width}
        />
        {screen === 'list' ? (
          <EventList
            rows={events.rows}
            selected={selected}
            start={start.current}
            height={bodyHeight}
            width={width}
            now={now}
            loading={events.loading}
            filter={state.search}
          />
        ) : screen === 'detail' ? (
          <EventDetailPanel
            lines={state.detail?.lines}
            offset={state.offset}
            height={bodyHeight}
            width={width}
            error={state.detail?.error}
          />
        ) : screen === 'stats' ? (
          <StatsPanel stats={state.stats} height={bodyHeight} width={width} />
        ) : (
          <HelpPanel height={bodyHeight} width={width} />
        )}
        <Footer prompt={state.prompt} notice={state.notice ?? events.error} screen={screen} width={width} />
      </Box>
    </ThemeContext.Provider>
  );
}

// The alternate screen keeps the user's scrollback intact: leaving the UI puts the terminal back as it was.
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h';
const LEAVE_ALTERNATE_SCREEN = '\u001b[?1049l';

export interface RunTuiOptions {
  connection: Connection;
  color: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Runs the UI until the user quits (q or Ctrl-C), then restores the terminal. */
export async function runTui({ connection, color, stdin, stdout, stderr }: RunTuiOptions): Promise<void> {
  stdout.write(ENTER_ALTERNATE_SCREEN);
  try {
    const app = render(<TuiApp connection={connection} color={color} />, {
      stdin,
      stdout,
      stderr,
      patchConsole: false,
      exitOnCtrlC: true,
    });
    await app.waitUntilExit();
  } finally {
    stdout.write(LEAVE_ALTERNATE_SCREEN);
  }
}
