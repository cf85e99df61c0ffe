import { useHotkeys } from '@mantine/hooks';
import { useRef } from 'react';
import { navItems } from './nav-items';
import type { Me } from './session';

/** "g" then one of these keys goes to a page of the navigation bar (the one with that `to`). */
const GO_KEYS: { key: string; to: string }[] = [
  { key: 'o', to: '/' },
  { key: 'e', to: '/events' },
  { key: 'r', to: '/rules' },
  { key: 'a', to: '/access' },
  { key: 'd', to: '/domains' },
  { key: 's', to: '/settings' },
  { key: 'p', to: '/platform' },
  { key: 'u', to: '/account' },
];
/** How long after "g" the second key still counts. */
const SEQUENCE_MS = 1500;
/** The element "/" focuses: the page's search field, if it has one (the events list). */
export const SEARCH_SHORTCUT_ATTR = 'data-shortcut-search';

export interface ShortcutHelp {
  keys: string[];
  label: string;
}

/** Every shortcut `me` can use, as the help dialog lists them: pages it cannot see are left out. */
export function shortcutList(me: Me): ShortcutHelp[] {
  const pages = GO_KEYS.flatMap(({ key, to }) => {
    const item = navItems.find((i) => i.to === to);
    return item?.visible(me) ? [{ keys: ['g', key], label: `Go to ${item.label}` }] : [];
  });
  return [
    ...pages,
    { keys: ['/'], label: 'Search (on the Events page)' },
    { keys: ['?'], label: 'Show these shortcuts' },
  ];
}

interface Handlers {
  me: Me;
  go: (to: string) => void;
  openHelp: () => void;
}

/**
 * The dashboard's keyboard shortcuts, on the whole document. Mantine's useHotkeys ignores keys typed into inputs,
 * text areas, selects and content-editable elements (the CodeMirror editors), so typing never navigates.
 */
export function useKeyboardShortcuts({ me, go, openHelp }: Handlers) {
  const gAt = useRef(0);
  const targets = new Set(
    GO_KEYS.filter(({ to }) => navItems.find((i) => i.to === to)?.visible(me)).map(({ key }) => key),
  );
  const second = (key: string) => () => {
    const armed = Date.now() - gAt.current < SEQUENCE_MS;
    gAt.current = 0;
    if (armed && targets.has(key)) go(GO_KEYS.find((g) => g.key === key)!.to);
  };
  const focusSearch = (event: KeyboardEvent) => {
    const field = document.querySelector<HTMLElement>(`[${SEARCH_SHORTCUT_ATTR}]`);
    if (!field) return;
    event.preventDefault();
    field.focus();
  };
  // preventDefault off: a lone letter outside a field keeps whatever the browser does with it.
  const quiet = { preventDefault: false };
  useHotkeys([
    ['g', () => void (gAt.current = Date.now()), quiet],
    ...GO_KEYS.map(({ key }) => [key, second(key), quiet] as [string, () => void, typeof quiet]),
    ['/', focusSearch, quiet],
    ['shift+?', openHelp],
    ['?', openHelp],
  ]);
}
