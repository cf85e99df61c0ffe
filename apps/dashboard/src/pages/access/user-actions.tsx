import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmButton } from '../../components/confirm-button';
import { ProblemAlert } from '../../components/problem-alert';
import { CopyField } from '../settings/copy-field';
import type { User } from './access-types';

type Issued = { code: string; link: string; expires_at: string };

/**
 * One user's lifecycle actions (the users panel is admins' only): disable or re-enable, issue a set-password code,
 * delete. Admins cannot disable or delete themselves (the API refuses it too), and the last admin stays.
 */
export function UserActions({ user }: { user: User }) {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const self = me.user?.id === user.id;
  const path = { params: { path: { id: user.id } } };
  const done = async (message: string) => {
    notifications.show({ message });
    await queryClient.invalidateQueries({ queryKey: ['users'] });
  };
  const toggle = useMutation({
    mutationFn: async () =>
      user.disabled
        ? dataOf(client.POST('/api/users/{id}/enable', path))
        : dataOf(client.POST('/api/users/{id}/disable', path)),
    onSuccess: () => done(`${user.username} ${user.disabled ? 'enabled' : 'disabled'}.`),
  });
  const remove = useMutation({
    mutationFn: async () => dataOf(client.DELETE('/api/users/{id}', path)),
    onSuccess: () => done(`${user.username} deleted.`),
  });
  const reset = useMutation({
    mutationFn: async (): Promise<Issued> => dataOf(client.POST('/api/users/{id}/password-reset', path)),
  });
  const error = toggle.error ?? remove.error;
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="nowrap">
        {self ? null : (
          <ConfirmButton
            size="xs"
            color={user.disabled ? 'green' : 'red'}
            loading={toggle.isPending}
            message={
              user.disabled
                ? `Enable ${user.username}? They can sign in again.`
                : `Disable ${user.username}? Their sessions, tokens and Basic access are refused at once.`
            }
            confirmLabel={user.disabled ? 'Enable' : 'Disable'}
            onConfirm={() => toggle.mutate()}
          >
            {user.disabled ? 'Enable' : 'Disable'}
          </ConfirmButton>
        )}
        <Button size="xs" variant="default" loading={reset.isPending} onClick={() => reset.mutate()}>
          Reset password
        </Button>
        {self ? null : (
          <ConfirmButton
            size="xs"
            loading={remove.isPending}
            message={`Delete ${user.username}? Their sessions and tokens end; their audit entries are kept.`}
            confirmLabel="Delete"
            onConfirm={() => remove.mutate()}
          >
            Delete
          </ConfirmButton>
        )}
      </Group>
      <ProblemAlert error={error ?? reset.error} />
      <Modal
        opened={reset.data !== undefined}
        onClose={() => reset.reset()}
        title={`Set-password link for ${user.username}`}
        centered
        size="lg"
      >
        {reset.data ? (
          <Stack>
            <Alert color="yellow">
              This is the only time the code is shown. Give the link (or the code) to {user.username}; it works once,
              until {new Date(reset.data.expires_at).toLocaleString()}.
            </Alert>
            <Text size="sm">Link:</Text>
            <CopyField value={reset.data.link} label="set-password link" />
            <Text size="sm">Code:</Text>
            <CopyField value={reset.data.code} label="set-password code" />
            <Group justify="flex-end">
              <Button onClick={() => reset.reset()}>Done</Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </Stack>
  );
}
