// Types of the routing filter (docs/routing.md): what a filter sees and what compiling one gives.

/** What a filter sees of a webhook, as it was received (before any transformation). */
export interface FilterSubject {
  /** The payload: parsed JSON, or the body as text when it is not JSON. */
  body: unknown;
  /** Request headers by lower-cased name. */
  headers: Record<string, string | string[]>;
  /** The request path after the source segment, `""` when there is none. */
  path: string;
  /** The query string: one string per key, an array of strings for a repeated key. */
  query: Record<string, string | string[]>;
}

/** One problem of a filter; `path` names the bad part from the filter's root (`filter.body.amount.$gtt`). */
export interface FilterError {
  path: string;
  /** The same path as segments below `filter` (for schema libraries that build their own paths). */
  at: (string | number)[];
  message: string;
}

/** A checked filter, ready to evaluate many times. */
export interface CompiledFilter {
  readonly kind: 'json' | 'cel';
  /** The filter exactly as it was given: stored, shown and compiled again from it. */
  readonly source: unknown;
  /** @internal The evaluation; use `matches`. */
  readonly test: (subject: FilterSubject) => boolean;
}

export type CompileFilterResult = { ok: true; filter: CompiledFilter } | { ok: false; errors: FilterError[] };
