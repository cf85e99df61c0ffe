import { Alert, Button, Checkbox, Modal, Stack, Text, TextInput } from '@mantine/core';
import { dataOf } from '@relay/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { FormActions } from '../../components/form-actions';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { CopyField } from '../settings/copy-field';
import { SCOPES, type CreatedToken, type Scope } from './access-types';

interface CredentialFormProps {
  kind: 'api-key' | 'token';
  onClose: () => void;
}

/** Creates an API key (with scopes) or a personal token, then shows its secret once with a copy button. */
export function CredentialForm({ kind, onClose }: CredentialFormProps) {
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { name: '', scopes: [] as Scope[], expiresAt: '' } });
  const create = useMutation({
    mutationFn: async ({ name, scopes, expiresAt }: typeof form.values): Promise<CreatedToken> => {
      // A datetime-local value has no zone: it is the browser's local time, sent as UTC.
      const expires = expiresAt ? { expires_at: new Date(expiresAt).toISOString() } : {};
      return kind === 'api-key'
        ? dataOf(client.POST('/api/api-keys', { body: { name, scopes, ...expires } }))
        : dataOf(client.POST('/api/auth/tokens', { body: { name, ...expires } }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [kind] }),
  });
  const submit = form.onSubmit((values) => create.mutate(values));
  const title = kind === 'api-key' ? 'New API key' : 'New personal token';
  const created = create.data;
  return (
    <Modal opened onClose={onClose} title={title}>
      {created ? (
        <Stack>
          {created.token ? (
            <Alert color="yellow" title="Copy it now">
              <Text size="sm" mb="xs">
                This is the only time the token is shown.
              </Text>
              <CopyField value={created.token} label="token" />
            </Alert>
          ) : (
            <Alert color="gray">
              The token was shown by the first answer to this request and cannot be shown again.
            </Alert>
          )}
          <Button onClick={onClose}>Done</Button>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <ProblemAlert error={create.error} />
            <TextInput label="Name" required {...form.getInputProps('name')} error={fieldError(create.error, 'name')} />
            {kind === 'api-key' ? (
              <Checkbox.Group
                label="Scopes"
                description="What the key may do; it never exceeds an admin's rights"
                {...form.getInputProps('scopes')}
                error={fieldError(create.error, 'scopes')}
              >
                <Stack gap={6} mt={6}>
                  {SCOPES.map((scope) => (
                    <Checkbox key={scope} value={scope} label={scope} />
                  ))}
                </Stack>
              </Checkbox.Group>
            ) : null}
            <TextInput
              label="Expires at (optional)"
              type="datetime-local"
              {...form.getInputProps('expiresAt')}
              error={fieldError(create.error, 'expires_at')}
            />
            <FormActions onCancel={onClose} pending={create.isPending} />
          </Stack>
        </form>
      )}
    </Modal>
  );
}
