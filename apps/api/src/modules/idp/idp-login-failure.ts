import type { UserRecord } from '@relay/db';

/** Why an identity-provider login failed: audited as `auth.login_failed` and answered as `idp_login_failed`. */
export type IdpFailureReason =
  | 'no_login_in_progress'
  | 'state_mismatch'
  | 'provider_error'
  | 'code_rejected'
  | 'id_token_invalid'
  | 'provider_unreachable'
  | 'not_provisioned'
  | 'email_not_verified'
  | 'domain_not_allowed'
  | 'user_disabled'
  | 'wrong_organization';

export const FAILURE_TEXT: Record<IdpFailureReason, string> = {
  no_login_in_progress: 'No identity-provider login was started in this browser, or it has ended; start again.',
  state_mismatch: 'The answer from the identity provider does not belong to the login started here.',
  provider_error: 'The identity provider refused the login.',
  code_rejected: 'The identity provider did not accept the login code (expired or already used); start again.',
  id_token_invalid: 'The identity token from the provider did not pass validation.',
  provider_unreachable: 'The identity provider cannot be reached; try again later.',
  not_provisioned: 'No user of this relay is linked to that identity, and new users are not created automatically.',
  email_not_verified: 'The identity provider did not vouch for an e-mail address, so no user can be created.',
  domain_not_allowed: "The identity's e-mail domain is not allowed to sign in here.",
  user_disabled: 'This user is disabled.',
  wrong_organization: 'That identity belongs to a user of another organization.',
};

export class IdpLoginFailure extends Error {
  constructor(
    readonly reason: IdpFailureReason,
    readonly user: UserRecord | null = null,
    readonly detail?: string,
  ) {
    super(FAILURE_TEXT[reason]);
    this.name = 'IdpLoginFailure';
  }
}
