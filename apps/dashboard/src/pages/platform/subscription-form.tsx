import { Button, Group, NativeSelect, NumberInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
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
  const form = useForm({
    initialValues: {
      plan: subscription.plan,
      status: subscription.status,
      limit: (subscription.monthly_event_limit ?? '') as number | string,
      periodEnd: subscription.current_period_end ?? '',
    },
  });
  const save = useMutation({
    mutationFn: async ({ plan, status, limit, periodEnd }: typeof form.values): Promise<HostedOrganization> =>
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
  const submit = form.onSubmit((values) => save.mutate(values));
  return (
    <form onSubmit={submit} aria-label="Subscription">
      <Stack>
        <Title order={3}>Subscription</Title>
        <ProblemAlert error={save.error} />
        <Group align="flex-start">
          <TextInput label="Plan" {...form.getInputProps('plan')} error={fieldError(save.error, 'plan')} />
          <NativeSelect
            label="Status"
            data={[...SUBSCRIPTION_STATUSES]}
            {...form.getInputProps('status')}
            error={fieldError(save.error, 'status')}
          />
          <NumberInput
            label="Monthly event limit"
            description="Empty: unlimited"
            min={0}
            allowDecimal={false}
            {...form.getInputProps('limit')}
            error={fieldError(save.error, 'monthly_event_limit')}
          />
          <TextInput
            label="Current period end"
            description="ISO 8601, e.g. 2027-01-01T00:00:00Z"
            {...form.getInputProps('periodEnd')}
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
