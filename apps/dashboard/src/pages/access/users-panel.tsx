import { Badge, Button, Group, NativeSelect, PasswordInput, Stack, Table, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { ROLES, type Role, type User } from './access-types';
import { UserActions } from './user-actions';

const roleOptions = ROLES.map((r) => ({ value: r, label: r }));

/** The organization's users (admins only): add one, change a role, disable, reset a password, delete. */
export function UsersPanel() {
  const queryClient = useQueryClient();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: async (): Promise<{ users: User[] }> => dataOf(client.GET('/api/users')),
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['users'] });
  const changeRole = useMutation({
    mutationFn: async ({ id, role }: { id: string; role: Role }): Promise<User> =>
      dataOf(client.PATCH('/api/users/{id}/role', { params: { path: { id } }, body: { role } })),
    onSuccess: invalidate,
  });
  const [draft, setDraft] = useState({ username: '', email: '', password: '', role: 'viewer' as Role });
  const add = useMutation({
    mutationFn: async (): Promise<User> => dataOf(client.POST('/api/users', { body: draft })),
    onSuccess: async () => {
      setDraft({ username: '', email: '', password: '', role: 'viewer' });
      await invalidate();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  const set = (field: keyof typeof draft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  return (
    <Stack>
      <ProblemAlert error={users.error ?? changeRole.error} />
      {users.isLoading ? <PageLoader /> : null}
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Username</Table.Th>
            <Table.Th>E-mail</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {users.data?.users.map((u) => (
            <Table.Tr key={u.id}>
              <Table.Td>{u.username}</Table.Td>
              <Table.Td>{u.email}</Table.Td>
              <Table.Td>
                <NativeSelect
                  aria-label={`Role of ${u.username}`}
                  data={roleOptions}
                  value={u.role}
                  onChange={(e) => changeRole.mutate({ id: u.id, role: e.currentTarget.value as Role })}
                />
              </Table.Td>
              <Table.Td>
                {u.disabled ? (
                  <Badge color="red" variant="light">
                    disabled
                  </Badge>
                ) : (
                  <Badge color="green" variant="light">
                    active
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>
                <UserActions user={u} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <form onSubmit={submit} aria-label="New user">
        <ProblemAlert error={add.error} />
        <Group align="flex-start" mt="sm">
          <TextInput
            label="Username"
            required
            value={draft.username}
            onChange={(e) => set('username')(e.currentTarget.value)}
            error={fieldError(add.error, 'username')}
          />
          <TextInput
            label="E-mail"
            required
            value={draft.email}
            onChange={(e) => set('email')(e.currentTarget.value)}
            error={fieldError(add.error, 'email')}
          />
          <PasswordInput
            label="Password"
            required
            autoComplete="new-password"
            value={draft.password}
            onChange={(e) => set('password')(e.currentTarget.value)}
            error={fieldError(add.error, 'password')}
          />
          <NativeSelect
            label="Role"
            data={roleOptions}
            value={draft.role}
            onChange={(e) => set('role')(e.currentTarget.value)}
          />
          <Button type="submit" mt={25} loading={add.isPending}>
            Add user
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
