/** An RFC 9457 problem document as the relay sends it: every error has a stable `code`. */
export interface ProblemDocument {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  request_id?: string;
  /** Every field error of a `validation_failed` answer. */
  errors?: { field: string; path?: string; message: string }[];
  [extension: string]: unknown;
}

/** What a failed call threw: the answer's problem document, typed. */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: { field: string; path?: string; message: string }[];

  constructor(readonly problem: ProblemDocument) {
    super(problem.detail ?? problem.title);
    this.name = 'ProblemError';
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The problem of a failed answer. `body` is what the client already parsed (openapi-fetch's
 * `error`); without it the response is read here. An answer that is no problem document (a proxy's
 * HTML error page, a network-level refusal) still becomes one, with code `http_<status>`.
 */
export async function problemOf(response: Response, body?: unknown): Promise<ProblemError> {
  let parsed = body;
  if (parsed === undefined && !response.bodyUsed) parsed = await response.json().catch(() => undefined);
  const fallbackTitle = response.statusText || `HTTP ${response.status}`;
  if (!isRecord(parsed))
    return new ProblemError({ title: fallbackTitle, status: response.status, code: `http_${response.status}` });
  return new ProblemError({
    ...parsed,
    title: typeof parsed.title === 'string' ? parsed.title : fallbackTitle,
    status: typeof parsed.status === 'number' ? parsed.status : response.status,
    code: typeof parsed.code === 'string' ? parsed.code : `http_${response.status}`,
    ...(typeof parsed.detail === 'string' ? { detail: parsed.detail } : { detail: undefined }),
    errors: Array.isArray(parsed.errors) ? (parsed.errors as ProblemDocument['errors']) : undefined,
  });
}

/**
 * openapi-fetch's answer as a value or a thrown ProblemError, for callers that want exceptions
 * (TanStack Query's queryFn, a CLI command): `const me = await dataOf(client.GET('/api/auth/me'))`.
 */
export async function dataOf<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw await problemOf(response, error);
  return data as T;
}
