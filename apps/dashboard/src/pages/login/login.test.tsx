import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, renderApp } from '../../../test/render-app';

const oauthOn = {
  enabled: true,
  provider: 'oidc',
  issuer: 'https://id.example.com',
  login_url: '/api/auth/idp',
  button_label: 'Sign in with Example ID',
};

// Every code the API's callback sends (the reasons of idp_login_failed, and the problem codes it redirects for).
const READABLE: Record<string, RegExp> = {
  no_login_in_progress: /was started in this browser, or it took too long/,
  state_mismatch: /for a sign-in that was not started here/,
  provider_error: /identity provider refused the sign-in/,
  code_rejected: /did not accept the sign-in code/,
  id_token_invalid: /did not pass validation/,
  provider_unreachable: /cannot be reached/,
  not_provisioned: /No user of this relay is linked to that identity/,
  email_not_verified: /does not vouch for your e-mail address/,
  domain_not_allowed: /domain is not allowed to sign in here/,
  user_disabled: /This user is disabled/,
  wrong_organization: /belongs to a user of another organization/,
  idp_not_configured: /not set up for this organization/,
  identity_taken: /already linked to another user/,
};

const alert = async () => screen.findByRole('alert', {}, { timeout: 5000 });

describe('sign-in page: a failed identity-provider login', () => {
  it.each(Object.entries(READABLE))('says why for ?error=%s', async (code, text) => {
    fakeApi({ 'GET /config/oauth': { body: oauthOn } });
    renderApp(`/app/login?error=${code}`);
    const shown = await alert();
    expect(shown).toHaveTextContent('Sign-in through the identity provider failed');
    expect(shown).toHaveTextContent(text);
  });

  it('shows a general text for an unknown code, never the code itself', async () => {
    fakeApi({ 'GET /config/oauth': { body: oauthOn } });
    renderApp(`/app/login?error=${encodeURIComponent('Call_+1-555_for_support')}`);
    const shown = await alert();
    expect(shown).toHaveTextContent('did not succeed. Start again.');
    expect(shown).not.toHaveTextContent(/555/);
  });

  it('keeps the asked page for the next attempt through the provider', async () => {
    fakeApi({ 'GET /config/oauth': { body: oauthOn } });
    renderApp(`/app/login?error=provider_error&redirect=${encodeURIComponent('/events')}`);
    await alert();
    const link = await screen.findByRole('link', { name: 'Sign in with Example ID' });
    expect(link).toHaveAttribute('href', `/api/auth/idp?return_to=${encodeURIComponent('/app/events')}`);
  });

  it('shows no such alert without an error', async () => {
    fakeApi({ 'GET /config/oauth': { body: oauthOn } });
    renderApp('/app/login');
    await screen.findByRole('link', { name: 'Sign in with Example ID' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('sign-in page: whose sign-in it is', () => {
  it('names the product, the organization and the identity provider', async () => {
    fakeApi({ 'GET /config/oauth': { body: { ...oauthOn, organization_name: 'Acme Corp' } } });
    renderApp('/app/login');
    expect(await screen.findByTestId('login-organization')).toHaveTextContent('to Acme Corp');
    expect(screen.getByText('Webhook relay')).toBeInTheDocument();
    expect(screen.getByText('Identity provider: id.example.com')).toBeInTheDocument();
  });

  it('names no organization when the API may not, and no provider when there is none', async () => {
    const off = { enabled: false, provider: null, issuer: null, login_url: null, button_label: null };
    fakeApi({ 'GET /config/oauth': { body: { ...off, organization_name: null } } });
    renderApp('/app/login');
    expect(await screen.findByText('Webhook relay')).toBeInTheDocument();
    await screen.findByRole('button', { name: 'Sign in' });
    expect(screen.queryByTestId('login-organization')).not.toBeInTheDocument();
    expect(screen.queryByText(/Identity provider:/)).not.toBeInTheDocument();
  });

  it('shows a refused password as a title and a sentence', async () => {
    const refused = { title: 'Unauthorized', status: 401, code: 'invalid_credentials', request_id: 'req-7' };
    fakeApi({
      'GET /config/oauth': { body: { ...oauthOn, organization_name: null } },
      'POST /api/auth/login': { status: 401, body: refused },
    });
    renderApp('/app/login');
    await userEvent.type(await screen.findByLabelText(/Username/), 'alice');
    await userEvent.type(screen.getByLabelText(/Password/), 'wrong');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const shown = await alert();
    expect(shown).toHaveTextContent('Unauthorized');
    expect(shown).toHaveTextContent('the credentials were not accepted');
    expect(shown).toHaveTextContent('Request id: req-7');
    expect(shown.textContent).not.toContain('{');
  });
});
