import { Alert, Button, Modal, PasswordInput, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { FormActions } from '../../components/form-actions';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { CopyField } from '../settings/copy-field';
import type { HostedOrganization } from './platform-types';

interface Created {
  organization: HostedOrganization;
  admin: { id: string; username: string };
  ingest_urls: string[];
}

// The eight fields of POST /api/platform/organizations, in the order the form shows them.
const FIELDS = [
  { name: 'name', label: 'Organization name' },
  { name: 'slug', label: 'Slug', description: 'It becomes <slug>.<ingest host>' },
  { name: 'subscriber_name', label: 'Subscriber name' },
  { name: 'billing_contact_name', label: 'Billing contact name' },
  { name: 'billing_contact_email', label: 'Billing contact e-mail' },
  { name: 'username', label: 'Admin username' },
  { name: 'email', label: 'Admin e-mail' },
  { name: 'password', label: 'Admin password', secret: true },
] as const;
type Field = (typeof FIELDS)[number]['name'];
const empty = Object.fromEntries(FIELDS.map((f) => [f.name, ''])) as Record<Field, string>;

/** Creates an organization and its first admin; every refused field shows its message under itself. */
export function OrganizationForm({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: empty });
  const create = useMutation({
    mutationFn: async (values: typeof empty): Promise<Created> =>
      dataOf(client.POST('/api/platform/organizations', { body: values })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['platform'] }),
  });
  const submit = form.onSubmit((values) => create.mutate(values));
  const created = create.data;
  return (
    <Modal opened onClose={onClose} title="New organization" size="lg">
      {created ? (
        <Stack>
          <Alert color="green" title={`${created.organization.name} created`}>
            Admin {created.admin.username} can sign in now. Its webhooks arrive at:
          </Alert>
          {created.ingest_urls.map((url) => (
            <CopyField key={url} value={url} label={url} />
          ))}
          <Button onClick={onClose}>Done</Button>
        </Stack>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <ProblemAlert error={create.error} />
            <SimpleGrid cols={2}>
              {FIELDS.map((f) => {
                const Input = 'secret' in f ? PasswordInput : TextInput;
                return (
                  <Input
                    key={f.name}
                    label={f.label}
                    description={'description' in f ? f.description : undefined}
                    required
                    {...form.getInputProps(f.name)}
                    error={fieldError(create.error, f.name)}
                  />
                );
              })}
            </SimpleGrid>
            <FormActions onCancel={onClose} pending={create.isPending} />
          </Stack>
        </form>
      )}
    </Modal>
  );
}
