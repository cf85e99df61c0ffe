import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { dataOf } from '@relay/client';
import { ApiError, client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';

// The API's reasons for refusing a deletion (409, by the problem's code), in words an operator can act on.
const REFUSALS: Record<string, { title: string; sentence: string }> = {
  organization_has_domains: {
    title: 'It still has an active custom domain',
    sentence:
      'Webhooks still arrive at its own domain, so it is not deleted. Its admin removes the domain on the ' +
      "organization's Domains page; then delete it here.",
  },
  organization_is_default: {
    title: "It is the install's default organization",
    sentence:
      'Webhooks to the canonical ingest host (and every webhook of a single-tenant install) belong to it, so it ' +
      'cannot be deleted. Suspend or cancel its subscription to stop its ingest instead.',
  },
};

function Refusal({ error, domains }: { error: unknown; domains: string[] }) {
  const code = error instanceof ApiError && error.status === 409 ? error.code : undefined;
  const refusal = code ? REFUSALS[code] : undefined;
  if (!refusal) return <ProblemAlert error={error} />;
  return (
    <Alert color="red" title={`Not deleted: ${refusal.title.toLowerCase()}`} role="alert">
      <Text size="sm">{refusal.sentence}</Text>
      {code === 'organization_has_domains' && domains.length ? (
        <Text size="sm" mt="xs">
          Active: {domains.join(', ')}
        </Text>
      ) : null}
    </Alert>
  );
}

interface Props {
  organization: { id: string; slug: string; name: string };
  /** Its active custom domains, named when they are what refuses the deletion. */
  activeDomains: string[];
}

/** Deletes an organization after its slug is typed: everything of it goes, only the platform audit log stays. */
export function DeleteOrganization({ organization, activeDomains }: Props) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: async () =>
      dataOf(client.DELETE('/api/platform/organizations/{id}', { params: { path: { id: organization.id } } })),
    // The console's cached list and counts still hold it: dropped, not just marked stale, so the list the operator
    // lands on is fetched afresh rather than shown with the deleted organization until the refetch answers.
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['platform', 'organizations'] });
      queryClient.removeQueries({ queryKey: ['platform', 'overview'] });
      await queryClient.invalidateQueries({ queryKey: ['platform-audit'] });
      await navigate({ to: '/platform' });
      queryClient.removeQueries({ queryKey: ['platform', 'organization', organization.id] });
    },
  });
  const close = () => {
    setOpen(false);
    setTyped('');
    remove.reset();
  };
  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpen(true)}>
        Delete organization
      </Button>
      <Modal opened={open} onClose={close} title={`Delete ${organization.name}`} centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (typed === organization.slug) remove.mutate();
          }}
        >
          <Stack>
            <Text size="sm">
              Its events, rules, users, API keys, domains and audit log are deleted; this cannot be undone. Export its
              events first if they are to be kept. The platform audit log records the deletion.
            </Text>
            {remove.error ? <Refusal error={remove.error} domains={activeDomains} /> : null}
            <TextInput
              label={`Type the slug ${organization.slug} to confirm`}
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              autoComplete="off"
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" color="red" disabled={typed !== organization.slug} loading={remove.isPending}>
                Delete
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
