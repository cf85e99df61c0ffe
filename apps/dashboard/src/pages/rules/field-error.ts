import { ApiError } from '../../app/api-client';

// Codes whose problem concerns one field without an `errors` list: shown under that field too.
const FIELD_OF_CODE: Record<string, string> = {
  target_url_rejected: 'target_url',
  slug_taken: 'slug',
  username_taken: 'username',
  domain_taken: 'domain',
  wrong_password: 'current_password',
  reset_code_invalid: 'code',
  verification_secret_required: 'verification_secret',
  destination_name_taken: 'name',
};

/** The message a failed request's problem document gives for one form field, shown under that field. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const { problem } = error;
  const listed = problem.errors?.find((e) => e.field === field);
  if (listed) return listed.message;
  return problem.code && FIELD_OF_CODE[problem.code] === field ? (problem.detail ?? problem.title) : undefined;
}

/** The first message for a field or anything inside it (`dedup` covers `dedup.header`), for a group of inputs. */
export function fieldErrorUnder(error: unknown, prefix: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const listed = error.problem.errors?.find((e) => e.field === prefix || e.field.startsWith(`${prefix}.`));
  return listed?.message ?? fieldError(error, prefix);
}
