/**
 * Why an identity-provider login failed, as the API's callback tells the sign-in page (`?error=<code>`: the reason
 * of `idp_login_failed`, or the problem code), in words a person can act on. Only these texts are shown: the
 * code comes from a URL anyone can craft, so an unknown one gets the general text, never itself.
 */
const IDP_ERRORS: Record<string, string> = {
  no_login_in_progress:
    'No sign-in through the identity provider was started in this browser, or it took too long. Start again.',
  state_mismatch: 'The identity provider answered for a sign-in that was not started here. Start again.',
  provider_error: 'The identity provider refused the sign-in.',
  code_rejected: 'The identity provider did not accept the sign-in code (expired or already used). Start again.',
  id_token_invalid: "The identity provider's answer did not pass validation. Ask your administrator.",
  provider_unreachable: 'The identity provider cannot be reached. Try again later.',
  not_provisioned:
    'No user of this relay is linked to that identity, and new users are not created automatically. ' +
    'Ask an administrator for an account.',
  email_not_verified: 'The identity provider does not vouch for your e-mail address, so no user can be created.',
  domain_not_allowed: "Your e-mail address's domain is not allowed to sign in here.",
  user_disabled: 'This user is disabled. Ask an administrator.',
  wrong_organization: 'That identity belongs to a user of another organization.',
  idp_not_configured: 'Sign-in through an identity provider is not set up for this organization.',
  identity_taken: 'That identity is already linked to another user.',
};

const GENERAL = 'The sign-in through the identity provider did not succeed. Start again.';

/** The text for a `?error=` code of the sign-in page. */
export const idpErrorText = (code: string): string => (Object.hasOwn(IDP_ERRORS, code) ? IDP_ERRORS[code]! : GENERAL);
