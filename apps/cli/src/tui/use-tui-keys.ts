// Every key of the UI, by what is on screen: a prompt (filter, y/n) takes the keys first, then the screen.
import { useInput, type Key } from 'ink';
import type { Connection } from '../context';
import { acknowledgeEvent, deleteEvent, errorNotice, loadStats, retryEvent } from './tui-actions';
import type { EventsState } from './use-events';
import { selectedIndexOf, type UiState, type Update } from './ui-state';

export interface KeyTargets {
  connection: Connection;
  events: EventsState;
  ui: () => UiState;
  update: Update;
  /** Rows in the list's window, and lines in the detail's. */
  pageSize: number;
  quit: () => void;
}

const up = (input: string, key: Key) => key.upArrow || input === 'k';
const down = (input: string, key: Key) => key.downArrow || input === 'j';
const back = (input: string, key: Key) => key.escape || input === 'q';

export function useTuiKeys({ connection, events, ui, update, pageSize, quit }: KeyTargets): void {
  const select = (index: number) => {
    const rows = events.latest();
    const at = Math.max(0, Math.min(index, rows.length - 1));
    if (rows[at]) update({ selectedId: rows[at].id, selectedIndex: at });
  };
  const selected = () => selectedIndexOf(events.latest(), ui());
  // The event the action keys act on: the open one in the detail, else the selected row.
  const target = () => (ui().screen === 'detail' ? ui().detail?.id : events.latest()[selected()]?.id);

  const act = (action: 'retry' | 'ack' | 'delete') => {
    const id = target();
    if (!id) return;
    if (action === 'delete') return update({ prompt: { kind: 'confirm', question: `Delete event ${id}?`, id } });
    update({ notice: { kind: 'info', text: action === 'retry' ? 'Retrying…' : 'Acknowledging…' } });
    void (action === 'retry' ? retryEvent : acknowledgeEvent)(connection, id).then((notice) => {
      update({ notice });
      // Without the live stream the list would not learn of the change.
      if (events.stream !== 'live') events.reload();
    });
  };

  const confirmDelete = (id: string, yes: boolean) => {
    if (!yes) return update({ prompt: undefined, notice: { kind: 'info', text: 'Cancelled.' } });
    update({ prompt: undefined, notice: { kind: 'info', text: 'Deleting…' } });
    void deleteEvent(connection, id).then((notice) => {
      update({ notice });
      if (notice.kind === 'error') return;
      events.remove(id);
      if (ui().detail?.id === id) update({ screen: 'list', detail: undefined });
    });
  };

  const openStats = () => {
    update({ screen: 'stats', stats: undefined });
    loadStats(connection).then(
      (stats) => update({ stats }),
      (error: unknown) => update({ screen: 'list', notice: errorNotice(error, connection.baseUrl) }),
    );
  };

  const onFilterKey = (text: string, input: string, key: Key) => {
    if (key.escape) update({ prompt: undefined });
    else if (key.return)
      update({ prompt: undefined, search: text.trim(), selectedId: undefined, selectedIndex: 0, notice: undefined });
    else if (key.backspace || key.delete) update({ prompt: { kind: 'filter', text: text.slice(0, -1) } });
    else if (input && !key.ctrl && !key.meta && !/\p{Cc}/u.test(input))
      update({ prompt: { kind: 'filter', text: text + input } });
  };

  const onCommonKey = (input: string) => {
    if (input === 'r') act('retry');
    else if (input === 'a') act('ack');
    else if (input === 'd') act('delete');
    else if (input === 's') openStats();
    else if (input === '?') update({ screen: 'help' });
  };

  const onListKey = (input: string, key: Key) => {
    const rows = events.latest();
    if (up(input, key)) select(selected() - 1);
    else if (down(input, key)) select(selected() + 1);
    else if (key.pageUp) select(selected() - pageSize);
    else if (key.pageDown) select(selected() + pageSize);
    else if (key.home || input === 'g') select(0);
    else if (key.end || input === 'G') select(rows.length - 1);
    else if (key.return && rows[selected()])
      update({ screen: 'detail', detail: { id: rows[selected()]!.id }, offset: 0 });
    else if (input === '/') update({ prompt: { kind: 'filter', text: ui().search } });
    else if (key.escape && ui().search) update({ search: '', selectedId: undefined, selectedIndex: 0 });
    else if (input === 'q') quit();
    else onCommonKey(input);
  };

  const onDetailKey = (input: string, key: Key) => {
    const scroll = (delta: number) =>
      update((s) => ({ offset: Math.max(0, Math.min(s.offset + delta, (s.detail?.lines?.length ?? 1) - 1)) }));
    if (back(input, key)) update({ screen: 'list', detail: undefined });
    else if (up(input, key)) scroll(-1);
    else if (down(input, key)) scroll(1);
    else if (key.pageUp) scroll(-pageSize);
    else if (key.pageDown || input === ' ') scroll(pageSize);
    else onCommonKey(input);
  };

  const onKey = (input: string, key: Key) => {
    const { prompt, screen } = ui();
    if (prompt?.kind === 'filter') onFilterKey(prompt.text, input, key);
    else if (prompt?.kind === 'confirm') confirmDelete(prompt.id, input.toLowerCase() === 'y');
    else if (screen === 'list') onListKey(input, key);
    else if (screen === 'detail') onDetailKey(input, key);
    // Help and stats: a back key, or their own key again, returns to the list.
    else if (back(input, key) || input === '?' || input === 's') update({ screen: 'list' });
  };

  useInput((input, key) => {
    // Keys typed faster than they are read arrive together ("jjj"): each is a key press, except in the filter,
    // where a paste is text.
    if (input.length > 1 && ui().prompt?.kind !== 'filter' && !key.ctrl && !key.meta)
      for (const char of input) onKey(char, key);
    else onKey(input, key);
  });
}
