import { AppError } from '@relay/core';
import type { Response } from 'express';

/** 429 `too_many_attempts`; the wait rides in the problem document and, via `retryAfter`, the header. */
export const tooManyAttempts = (retryAfterSeconds: number) =>
  new AppError('too_many_attempts', `Too many failed attempts; try again in ${retryAfterSeconds} s.`, {
    retry_after_seconds: retryAfterSeconds,
  });

/** Sets `Retry-After` when the error is a `tooManyAttempts`; anything else passes untouched. */
export function retryAfter(res: Response, err: unknown): void {
  if (!(err instanceof AppError) || err.code !== 'too_many_attempts') return;
  const seconds = err.details?.retry_after_seconds;
  if (typeof seconds === 'number') res.setHeader('Retry-After', String(seconds));
}
