import { AppError } from '@relay/core';
import type { Request } from 'express';
import { z } from 'zod';

const uuid = z.uuid();

/** A uuid path parameter; anything else cannot name a resource, so it is a 404 like an unknown id. */
export function idParam(req: Request, name = 'id', what = 'resource'): string {
  const value = String(req.params[name]);
  if (!uuid.safeParse(value).success) throw new AppError('not_found', `No such ${what}.`);
  return value;
}
