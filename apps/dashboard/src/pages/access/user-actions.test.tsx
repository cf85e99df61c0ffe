import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { admin, fakeApi, renderApp, viewer } from '../../../test/render-app';

const alice = {
  id: 'u1',
  username: 'alice',
  email: 'alice@example.com',
  role: 'admin',
  disabled: false,
  created_at: '2026-11-01T00:00:00Z',
};
const bob = { ...alice, id: 'u2', username: 'bob', email: 'bob@example.com', role: 'viewer' };
const carol = { ...alice, id: 'u3', username: 'carol', email: 'carol@example.com', role: 'viewer', disabled: true };

const rowOf = async (name: string) => {
  const cell = await screen.findByRole('cell', { name });
  return cell.closest('tr')!;
};
/** Clicks a user's action, then its dialog's confirm button, and waits until the dialog has gone. */
const confirm = async (username: string, action: string) => {
  const user = userEvent.setup();
  await user.click(within(await rowOf(username)).getByRole('button', { name: action }));
  const dialog = await screen.findByRole('dialog');
  expect(dialog).toHaveTextContent(username);
  await user.click(within(dialog).getByRole('button', { name: action }));
  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
};

describe('users panel: the account lifecycle', () => {
  it('shows disabled users with a badge and no lifecycle actions on the admin themself', async () => {
    fakeApi({ 'GET /api/auth/me': { body: admin }, 'GET /api/users': { body: { users: [alice, bob, carol] } } });
    renderApp('/app/access');
    const carolRow = await rowOf('carol');
    expect(within(carolRow).getByText('disabled')).toBeInTheDocument();
    expect(within(carolRow).getByRole('button', { name: 'Enable' })).toBeInTheDocument();
    const bobRow = await rowOf('bob');
    expect(within(bobRow).getByText('active')).toBeInTheDocument();
    expect(within(bobRow).getByRole('button', { name: 'Disable' })).toBeInTheDocument();
    const own = await rowOf('alice');
    expect(within(own).queryByRole('button', { name: /Disable|Delete/ })).not.toBeInTheDocument();
    expect(within(own).getByRole('button', { name: 'Reset password' })).toBeInTheDocument();
  });

  it('disables a user after confirmation, and re-enables one', async () => {
    let users = [alice, bob, carol];
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/users': () => ({ body: { users } }),
      'POST /api/users/u2/disable': () => {
        users = users.map((u) => (u.id === 'u2' ? { ...u, disabled: true } : u));
        return { body: { ...bob, disabled: true } };
      },
      'POST /api/users/u3/enable': { body: { ...carol, disabled: false } },
    });
    renderApp('/app/access');
    const user = userEvent.setup();
    // Cancel does nothing.
    await user.click(within(await rowOf('bob')).getByRole('button', { name: 'Disable' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Their sessions, tokens and Basic access are refused at once.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);

    await confirm('bob', 'Disable');
    expect(await screen.findByText('bob disabled.')).toBeInTheDocument();
    await waitFor(async () => expect(within(await rowOf('bob')).getByText('disabled')).toBeInTheDocument());
    expect(within(await rowOf('bob')).getByRole('button', { name: 'Enable' })).toBeInTheDocument();

    await confirm('carol', 'Enable');
    expect(await screen.findByText('carol enabled.')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'POST').map((c) => c.url.pathname)).toEqual([
      '/api/users/u2/disable',
      '/api/users/u3/enable',
    ]);
  });

  it('deletes a user after confirmation and shows a refusal as the problem document', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/users': { body: { users: [alice, bob, carol] } },
      'DELETE /api/users/u2': { status: 204 },
      'DELETE /api/users/u3': {
        status: 409,
        body: { title: 'Conflict', status: 409, code: 'last_admin', detail: 'An organization must keep an admin.' },
      },
    });
    renderApp('/app/access');
    await confirm('bob', 'Delete');
    expect(await screen.findByText('bob deleted.')).toBeInTheDocument();
    await confirm('carol', 'Delete');
    expect(await screen.findByText('An organization must keep an admin.')).toBeInTheDocument();
    // Still listed: the refusal changed nothing.
    expect(await rowOf('carol')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.url.pathname)).toEqual([
      '/api/users/u2',
      '/api/users/u3',
    ]);
  });

  it('issues a set-password code and shows the code and link once, with copy buttons', async () => {
    const issued = {
      code: 'one-time-code-xyz',
      link: 'https://relay.example.com/app/set-password?code=one-time-code-xyz',
      expires_at: '2026-11-02T00:00:00Z',
    };
    fakeApi({
      'GET /api/auth/me': { body: admin },
      'GET /api/users': { body: { users: [alice, bob] } },
      'POST /api/users/u2/password-reset': { status: 201, body: issued },
    });
    renderApp('/app/access');
    const user = userEvent.setup();
    await user.click(within(await rowOf('bob')).getByRole('button', { name: 'Reset password' }));
    const dialog = await screen.findByRole('dialog', { name: 'Set-password link for bob' });
    expect(within(dialog).getByText(issued.link)).toBeInTheDocument();
    expect(within(dialog).getByText(issued.code)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Copy set-password link' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Copy set-password code' })).toBeInTheDocument();
    expect(dialog).toHaveTextContent('This is the only time the code is shown.');
    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText(issued.code)).not.toBeInTheDocument());
  });

  it('gives a viewer none of these actions', async () => {
    const api = fakeApi({
      'GET /api/auth/me': { body: viewer },
      'GET /api/auth/tokens': { body: { tokens: [] } },
    });
    renderApp('/app/access');
    expect(await screen.findByRole('tab', { name: 'Personal tokens' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Disable|Enable|Reset password|Delete/ })).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.url.pathname === '/api/users')).toBe(false);
  });
});
