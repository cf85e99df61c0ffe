// The UI's own state (what is on screen, the selection, prompts). Keys arrive faster than React re-renders (a
// paste, tmux send-keys, a held j), so it lives in a ref that each key reads and writes at once; every change
// then re-renders.
import { useCallback, useReducer, useRef } from 'react';
import type { Line } from './detail-lines';
import type { Notice, Stats } from './tui-actions';
import type { EventRow } from './tui-model';

export type Screen = 'list' | 'detail' | 'stats' | 'help';
export type Prompt = { kind: 'filter'; text: string } | { kind: 'confirm'; question: string; id: string } | undefined;

export interface UiState {
  screen: Screen;
  prompt: Prompt;
  notice: Notice | undefined;
  /** The filter in effect (the API's `search`). */
  search: string;
  /** The selected event, and its index (where the selection stays when that event goes away). */
  selectedId: string | undefined;
  selectedIndex: number;
  detail: { id: string; lines?: Line[]; error?: string } | undefined;
  /** The first line of the detail shown. */
  offset: number;
  stats: Stats | undefined;
}

const initial: UiState = {
  screen: 'list',
  prompt: undefined,
  notice: undefined,
  search: '',
  selectedId: undefined,
  selectedIndex: 0,
  detail: undefined,
  offset: 0,
  stats: undefined,
};

export type Update = (patch: Partial<UiState> | ((state: UiState) => Partial<UiState>)) => void;

export function useUiState(): { ui: () => UiState; update: Update } {
  const state = useRef(initial);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const update = useCallback<Update>((patch) => {
    state.current = { ...state.current, ...(typeof patch === 'function' ? patch(state.current) : patch) };
    rerender();
  }, []);
  const ui = useCallback(() => state.current, []);
  return { ui, update };
}

/** The selected row's index: its event's place, else the last index (clamped) when that event is gone. */
export function selectedIndexOf(rows: EventRow[], state: UiState): number {
  const found = state.selectedId ? rows.findIndex((r) => r.id === state.selectedId) : -1;
  return found >= 0 ? found : Math.max(0, Math.min(state.selectedIndex, rows.length - 1));
}
