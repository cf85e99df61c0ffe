import { Button, Group, NativeSelect, NumberInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { SUBSCRIPTION_STATUSES, type HostedOrganization, type Subscription } from './platform-types';

/** Changes an organization's plan, status, monthly limit (empty: unlimited) and period end. */
export function SubscriptionForm({
  organizationId,
  subscription,
}: {
  organizationId: string;
  subscription: Subscription;
}) {
  const queryClient = useQueryClient();
  const [plan, setPlan] = useState(subscription.plan);
  const [status, setStatus] = useState(subscription.status);
  const [limit, setLimit] = useState<number | string>(subscription.monthly_event_limit ?? '');
  const [periodEnd, setPeriodEnd] = useState(subscription.current_period_end ?? '');
  const save = useMutation({
    mutationFn: async (): Promise<HostedOrganization> =>
      dataOf(
        client.PATCH('/api/platform/organizations/{id}/subscription', {
          params: { path: { id: organizationId } },
          body: {
            plan,
            status,
            monthly_event_limit: limit === '' ? null : Number(limit),
            current_period_end: periodEnd.trim() || null,
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['platform'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Subscription">
      <Stack>
        <Title order={3}>Subscription</Title>
        <ProblemAlert error={save.error} />
        <Group align="flex-start">
          <TextInput
            label="Plan"
            value={plan}
            onChange={(e) => setPlan(e.currentTarget.value)}
            error={fieldError(save.error, 'plan')}
          />
          <NativeSelect
            label="Status"
            data={[...SUBSCRIPTION_STATUSES]}
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as Subscription['status'])}
            error={fieldError(save.error, 'status')}
          />
          <NumberInput
            label="Monthly event limit"
            description="Empty: unlimited"
            min={0}
            allowDecimal={false}
            value={limit}
            onChange={setLimit}
            error={fieldError(save.error, 'monthly_event_limit')}
          />
          <TextInput
            label="Current period end"
            description="ISO 8601, e.g. 2027-01-01T00:00:00Z"
            value={periodEnd}
            onChange={(e) => setPeriodEnd(e.currentTarget.value)}
            error={fieldError(save.error, 'current_period_end')}
          />
        </Group>
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save subscription
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
