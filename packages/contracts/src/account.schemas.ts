import { z } from 'zod';
import { timestamp } from './common.schemas';
import { passwordSchema, usernameSchema } from './identity.schemas';

// The account lifecycle: changing one's password, set-password codes, and platform operators.
const currentPassword = z.string().min(1).max(256).describe('The password in use now.');

export const passwordChangeSchema = z
  .object({ current_password: currentPassword, new_password: passwordSchema })
  .strict()
  .describe("Every other session and every personal token of the account end; the caller's session stays.");

export const passwordResetRedeemSchema = z
  .object({
    code: z.string().min(1).max(200).describe('The one-time code an admin issued.'),
    new_password: passwordSchema,
  })
  .strict();

export const passwordResetIssuedSchema = z.object({
  code: z.string().describe('The one-time code, shown only in this response.'),
  link: z.string().describe('`<PUBLIC_BASE_URL>/app/set-password?code=…`: where the user sets a password.'),
  expires_at: timestamp,
});

export const operatorSchema = z.object({ id: z.uuid(), username: z.string(), created_at: timestamp });
export const operatorCreateSchema = z.object({ username: usernameSchema, password: passwordSchema }).strict();
