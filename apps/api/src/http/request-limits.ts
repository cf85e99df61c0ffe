import type { IncomingMessage } from 'node:http';
import { AppError, jsonTextDepth } from '@relay/core';
import type { RequestHandler } from 'express';

/**
 * Answers 431 `too_many_headers` to a request with more than `max` header fields. Node's own
 * maxHeadersCount drops the extra fields silently (and they would be stored and forwarded), so
 * they are counted here, from the raw list.
 */
export function headerCountLimit(max: number): RequestHandler {
  return (req, _res, next) => {
    const count = req.rawHeaders.length / 2;
    next(count > max ? new AppError('too_many_headers', `At most ${max} header fields are accepted.`) : undefined);
  };
}

/**
 * A body-parser `verify` hook refusing JSON nested deeper than `maxDepth` before it is parsed:
 * anything recursive later on (a fingerprint, a re-serialisation) would overflow the stack on it.
 */
export function jsonDepthLimit(maxDepth: number) {
  return (_req: IncomingMessage, _res: unknown, body: Buffer): void => {
    if (jsonTextDepth(body, maxDepth) > maxDepth) {
      throw new AppError('payload_too_deep', `The JSON is nested deeper than ${maxDepth} levels.`, {
        limit_depth: maxDepth,
      });
    }
  };
}
