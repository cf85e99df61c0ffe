import { z } from 'zod';
import { sourceSchema } from './common.schemas';

// The body arrives through express.json(), so it is JSON already; z.json() would only add a recursive
// schema that OpenAPI cannot reference from inside a path item.
export const payload = z
  .unknown()
  .refine((value) => value !== undefined, 'required')
  .describe('Any JSON value; it is delivered as its JSON text.');

export const sendSchema = z.union([
  z.object({ provider_id: z.uuid().describe("An active rule of the caller's organization."), body: payload }).strict(),
  z
    .object({
      source: sourceSchema,
      target_url: z
        .string()
        .trim()
        .max(2048)
        .describe('http(s) URL without credentials that passes the network policy; empty for the default target.'),
      body: payload,
    })
    .strict(),
]);

/** The answer of POST /api/send: the stored event, queued for delivery. */
export const sentSchema = z.object({
  id: z.uuid(),
  status: z.literal('queued'),
  source: z.string(),
  target_url: z.string(),
  provider_id: z.uuid().nullable(),
});
