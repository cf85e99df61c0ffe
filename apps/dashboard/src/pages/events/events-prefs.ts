import { columnsOf, type Columns } from './events-columns';
import { eventsSearch, type EventsSearch } from './events-search';

/** What the events page remembers for a user in this browser: its filters (and page size) and its columns. */
export interface EventsPrefs {
  filters?: Partial<EventsSearch>;
  columns?: Columns;
}

// Keyed by the user's id: two people sharing a browser profile (or one with two accounts) keep their own views.
const keyOf = (userId: string) => `relay.events-page.${userId}`;

// Storage may be missing or refuse (private mode, quota, disabled): the page then just does not remember.
function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

export function loadPrefs(userId: string): EventsPrefs {
  try {
    const raw = storage()?.getItem(keyOf(userId));
    if (!raw) return {};
    const stored = JSON.parse(raw) as { filters?: unknown; columns?: unknown };
    // Through the URL's own schema: a stale or hand-edited value falls back to "no filter", as in a link.
    const parsed = eventsSearch.partial().safeParse(stored.filters ?? {});
    return { filters: parsed.success ? stripPage(parsed.data) : undefined, columns: columnsOf(stored.columns) };
  } catch {
    return {};
  }
}

export function savePrefs(userId: string, prefs: EventsPrefs): void {
  const current = loadPrefs(userId);
  const next = { ...current, ...prefs };
  try {
    storage()?.setItem(
      keyOf(userId),
      JSON.stringify({ filters: next.filters, columns: next.columns ? [...next.columns] : undefined }),
    );
  } catch {
    // Quota or a refusing storage: nothing to remember then.
  }
}

const DEFAULTS: Partial<Record<string, unknown>> = eventsSearch.parse({});

/** The filters worth remembering: every search param but the page number, unset and default ones left out. */
export function stripPage(search: Partial<EventsSearch>): Partial<EventsSearch> {
  return Object.fromEntries(
    Object.entries(search).filter(([k, v]) => k !== 'page' && v !== undefined && v !== DEFAULTS[k]),
  );
}

/** Whose preferences: the signed-in user (an operator has no events page, but is someone too). */
export const prefsUserOf = (me: { user?: { id: string } | null; operator?: { id: string } }) =>
  me.user?.id ?? me.operator?.id ?? 'anonymous';
