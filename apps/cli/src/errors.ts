import { ProblemError } from '@relay/client';

/** Exit codes: 0 done, 1 the operation failed (the API refused, the relay is unreachable), 2 bad usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure the CLI explains itself, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad arguments or a missing confirmation: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

// Why fetch failed: a socket error code (ECONNREFUSED, ENOTFOUND; the first of several addresses tried), else the
// cause's message (fetch refuses some ports outright: "bad port").
const causeCode = (error: unknown): string | undefined => {
  const cause = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message;
};

/**
 * One line for any failure: a problem document becomes its detail (or title) with its stable code, so scripts can
 * match on `(code)`; a refused connection names the relay's URL.
 */
export function describeError(error: unknown, baseUrl?: string): { message: string; exitCode: number } {
  if (error instanceof ProblemError) {
    const fields = error.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    const detail = error.detail ?? error.title;
    return { message: `${detail}${fields ? ` (${fields})` : ''} [${error.code}]`, exitCode: EXIT_FAILURE };
  }
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = causeCode(error);
    return {
      message: `cannot reach the relay${baseUrl ? ` at ${baseUrl}` : ''}${code ? ` (${code})` : ''}`,
      exitCode: EXIT_FAILURE,
    };
  }
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT_FAILURE };
}
