import { z } from 'zod';

const isControl = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

/**
 * A path on this relay to land on after signing in: one leading slash (never `//host` or `/\host`, which
 * browsers read as another origin), no control characters.
 */
export const returnToSchema = z
  .string()
  .max(2048)
  .refine((path) => /^\/(?![/\\])[^\\]*$/.test(path) && ![...path].some(isControl), {
    message: 'must be a path on this relay, starting with a single "/"',
  });

const organizationSlug = z
  .string()
  .max(63)
  .optional()
  .describe("The organization's slug; unset: the organization of the host the request is sent to.");

export const idpLoginQuerySchema = z.object({
  return_to: returnToSchema.optional().describe('Where the browser lands after signing in (default `/app/`).'),
  organization: organizationSlug,
  link: z
    .enum(['1', 'true'])
    .optional()
    .describe("Signed in only: link the provider's identity to the signed-in user instead of signing in."),
});

/** `/config/oauth`: whose login to describe. */
export const oauthQuerySchema = z.object({ organization: organizationSlug });

const param = z.string().max(2048).optional();

/** The provider's answer: a code and the state, or an error (RFC 6749 §4.1.2). */
export const idpCallbackQuerySchema = z.object({
  code: param,
  state: param,
  iss: param,
  error: param,
  error_description: param,
});
