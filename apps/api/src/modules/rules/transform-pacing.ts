import { createHash } from 'node:crypto';
import { AppError, type RateLimitOption } from '@relay/core';
import { isTransformUnavailable, type TransformRunner } from '@relay/transform';

/** What a rule or destination write needs of the sandbox: the dry compile of a transform at save. */
export type TransformCompiler = Pick<TransformRunner, 'compile'>;

/** The transform and pacing fields of a rule or destination create or update (transform.schemas.ts). */
export interface TransformPacingInput {
  transform?: string | null | undefined;
  forward_path_query?: boolean | undefined;
  rate_limit?: { limit: number; period: RateLimitOption['period']; burst?: number | undefined } | null | undefined;
  max_concurrency?: number | null | undefined;
}

/**
 * Refuses (400 `validation_failed` at `transform`, with the line) code that does not compile. The code is
 * compiled in the sandbox, never run, so saving cannot run anything; what it does is tried by transform-test.
 */
export async function checkTransform(compiler: TransformCompiler, code: string | null | undefined): Promise<void> {
  if (code === undefined || code === null) return;
  const result = await sandboxCall(() => compiler.compile(code));
  if (result.ok) return;
  const { message, line } = result.error;
  throw new AppError('validation_failed', 'The request is not valid.', {
    errors: [{ field: 'transform', message: line === undefined ? message : `line ${line}: ${message}` }],
  });
}

/** A sandbox that failed on its own (not the code) answers 503 `service_unavailable`: try again, nothing is wrong. */
export async function sandboxCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isTransformUnavailable(error)) throw error;
    throw new AppError('service_unavailable', `The transform sandbox is unavailable (${error.message}); try again.`);
  }
}

/** The record's changes: undefined leaves a field as it is, null turns it off. */
export const transformPacingChanges = (input: TransformPacingInput) => ({
  ...(input.transform !== undefined ? { transform: input.transform } : {}),
  ...(input.forward_path_query !== undefined ? { forwardPathQuery: input.forward_path_query } : {}),
  ...(input.rate_limit !== undefined
    ? {
        rateLimit:
          input.rate_limit === null
            ? null
            : {
                limit: input.rate_limit.limit,
                period: input.rate_limit.period,
                ...(input.rate_limit.burst !== undefined ? { burst: input.rate_limit.burst } : {}),
              },
      }
    : {}),
  ...(input.max_concurrency !== undefined ? { maxConcurrency: input.max_concurrency } : {}),
});

/**
 * The audit entry names a transform by the SHA-256 of its code (null: removed), never the code itself: it may be
 * 256 KB, and a hash still tells which version was saved when.
 */
export const transformAudit = (transform: string | null | undefined): Record<string, unknown> =>
  transform === undefined ? {} : { transform_sha256: transform === null ? null : sha256(transform) };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
