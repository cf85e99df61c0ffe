import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, anonymous, fakeApi, renderApp } from '../../../test/render-app';
import type { Me } from '../../app/session';

const NEW = 'Correct-Horse-Battery-9';
const oauthOff = { enabled: false, provider: null, issuer: null, login_url: null, button_label: null };
const oauthOn = {
  enabled: true,
  provider: 'oidc',
  issuer: 'https://id.example.com',
  login_url: '/api/auth/idp',
  button_label: 'Sign in with Example ID',
};
const problem = (status: number, code: string, title: string, extra: object = {}) => ({
  status,
  body: { type: 'about:blank', title, status, code, ...extra },
});

describe('sign-in page: identity provider', () => {
  it('shows the provider button when configured, leading to login_url with the page to come back to', async () => {
    fakeApi({ 'GET /api/auth/me': { body: anonymous }, 'GET /config/oauth': { body: oauthOn } });
    renderApp('/app/events?status=failed');
    const link = await screen.findByRole('link', { name: 'Sign in with Example ID' });
    const href = new URL(link.getAttribute('href') ?? '', 'http://localhost');
    expect(href.pathname).toBe('/api/auth/idp');
    // The router's own href of the asked page (its search with defaults), under /app.
    expect(href.searchParams.get('return_to')).toMatch(/^\/app\/events\?status=failed(&|$)/);
    // Relative: the browser stays on this origin.
    expect(link.getAttribute('href')).toMatch(/^\/api\/auth\/idp\?/);
  });

  it('uses the default label and no return_to when nothing asked for the sign-in', async () => {
    fakeApi({ 'GET /config/oauth': { body: { ...oauthOn, button_label: null } } });
    renderApp('/app/login');
    const link = await screen.findByRole('link', { name: 'Sign in with your identity provider' });
    expect(link).toHaveAttribute('href', '/api/auth/idp');
  });

  it('never puts another origin into return_to', async () => {
    fakeApi({ 'GET /config/oauth': { body: oauthOn } });
    renderApp(`/app/login?redirect=${encodeURIComponent('//evil.example/x')}`);
    const link = await screen.findByRole('link', { name: 'Sign in with Example ID' });
    expect(link).toHaveAttribute('href', '/api/auth/idp');
  });

  it('shows no provider button when none is configured', async () => {
    const api = fakeApi({ 'GET /config/oauth': { body: oauthOff } });
    renderApp('/app/login');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    await waitFor(() => expect(api.calls.some((c) => c.url.pathname === '/config/oauth')).toBe(true));
    expect(screen.queryByRole('link', { name: /identity provider|Sign in with/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });
});

describe('account page: change password', () => {
  const fill = async (current: string, next: string, confirm = next) => {
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/Current password/), current);
    await user.type(screen.getByLabelText(/^New password/), next);
    await user.type(screen.getByLabelText(/Confirm new password/), confirm);
    await user.click(screen.getByRole('button', { name: 'Change password' }));
  };

  it('is in the navigation and changes the password, saying that other sessions and tokens ended', async () => {
    const api = fakeApi({ 'GET /api/auth/me': { body: admin }, 'POST /api/auth/password': { status: 204 } });
    renderApp('/app/account');
    expect(await screen.findByRole('heading', { name: 'Account' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toHaveTextContent('Account');
    await fill('old-password', NEW);
    expect(await screen.findByText('Password changed')).toBeInTheDocument();
    expect(screen.getByText(/personal tokens were revoked/)).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({
      current_password: 'old-password',
      new_password: NEW,
    });
    expect(screen.getByLabelText(/Current password/)).toHaveValue('');
  });

  it('catches two different new passwords before asking the API', async () => {
    const api = fakeApi({ 'GET /api/auth/me': { body: admin } });
    renderApp('/app/account');
    await fill('old-password', NEW, `${NEW}x`);
    expect(await screen.findByText('The two passwords differ.')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('shows a wrong current password under its field and a weak new one under its own', async () => {
    let answer = problem(403, 'wrong_password', 'The current password is wrong.');
    fakeApi({ 'GET /api/auth/me': { body: admin }, 'POST /api/auth/password': () => answer });
    renderApp('/app/account');
    await fill('not-it', NEW);
    await waitFor(() =>
      expect(screen.getByLabelText(/Current password/)).toHaveAccessibleDescription('The current password is wrong.'),
    );

    answer = problem(400, 'validation_failed', 'Invalid request', {
      errors: [{ field: 'new_password', message: 'at least 12 characters' }],
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    await waitFor(() =>
      expect(screen.getByLabelText(/^New password/)).toHaveAccessibleDescription(/at least 12 characters/),
    );
    expect(screen.getByLabelText(/Current password/)).not.toHaveAccessibleDescription(/wrong/);
  });

  it('shows a refusal that concerns no field above the form', async () => {
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'POST /api/auth/password': problem(429, 'too_many_attempts', 'Too many attempts', {
        detail: 'Try again in 60 seconds.',
      }),
    });
    renderApp('/app/account');
    await fill('old-password', NEW);
    expect(await screen.findByRole('alert')).toHaveTextContent('Try again in 60 seconds.');
  });

  it("changes an operator's password through the platform endpoint", async () => {
    const operator: Me = {
      mechanism: 'session',
      kind: 'operator',
      operator: { id: 'op1', username: 'root' },
      user: null,
      organization: null,
      role: null,
      scopes: [],
    };
    const api = fakeApi({ 'GET /api/auth/me': { body: operator }, 'POST /api/platform/password': { status: 204 } });
    renderApp('/app/account');
    await fill('old-password', NEW);
    expect(await screen.findByText('Password changed')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.url.pathname).toBe('/api/platform/password');
  });
});

describe('set-password page', () => {
  it('sets the password with the code, without a session, then shows the sign-in with a notice', async () => {
    const api = fakeApi({
      'POST /api/auth/password-reset': { status: 204 },
      'GET /config/oauth': { body: oauthOff },
    });
    const { router } = renderApp('/app/set-password?code=abc123');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^New password/), NEW);
    await user.type(screen.getByLabelText(/Confirm new password/), NEW);
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Your password is set');
    expect(router.state.location.pathname).toBe('/login');
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ code: 'abc123', new_password: NEW });
    // Public: the page never asked who is signed in.
    expect(api.calls.some((c) => c.url.pathname === '/api/auth/me')).toBe(false);
  });

  it('shows a used or expired code as the problem document and stays', async () => {
    fakeApi({
      'POST /api/auth/password-reset': problem(400, 'reset_code_invalid', 'Invalid set-password code', {
        detail: 'The set-password code was used already.',
      }),
    });
    const { router } = renderApp('/app/set-password?code=used');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^New password/), NEW);
    await user.type(screen.getByLabelText(/Confirm new password/), NEW);
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The set-password code was used already.');
    expect(router.state.location.pathname).toBe('/set-password');
  });

  it('without a code, says to ask for a link and cannot submit', async () => {
    fakeApi({});
    renderApp('/app/set-password');
    expect(await screen.findByRole('alert')).toHaveTextContent('Ask them for a new one');
    expect(screen.getByRole('button', { name: 'Set password' })).toBeDisabled();
  });
});
