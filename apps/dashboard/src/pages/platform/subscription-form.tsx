import { Button, Group, NativeSelect, NumberInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { SUBSCRIPTION_STATUSES, type HostedOrganization, type Subscription } from './platform-types';

type Whole = number | string;
/** An empty number field is null: unlimited (the quota) or the install-wide setting (the overrides). */
const orNull = (value: Whole) => (value === '' ? null : Number(value));

// The organization's own limits; each empty field falls back to the install's setting of the same name.
const OVERRIDES = [
  { name: 'ingest_rate_limit', label: 'Ingest rate limit', hint: 'Webhooks per window, whole organization' },
  { name: 'api_rate_limit', label: 'API rate limit', hint: 'Requests per window, each credential' },
  { name: 'retention_days', label: 'Retention (days)', hint: 'Days events are kept' },
] as const;

/**
 * Changes an organization's plan, status, monthly limit (empty: unlimited), period end, and its own rate limits and
 * retention (empty: the install-wide settings).
 */
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
      limit: (subscription.monthly_event_limit ?? '') as Whole,
      periodEnd: subscription.current_period_end ?? '',
      ingest_rate_limit: (subscription.ingest_rate_limit ?? '') as Whole,
      api_rate_limit: (subscription.api_rate_limit ?? '') as Whole,
      retention_days: (subscription.retention_days ?? '') as Whole,
    },
  });
  const save = useMutation({
    mutationFn: async (v: typeof form.values): Promise<HostedOrganization> =>
      dataOf(
        client.PATCH('/api/platform/organizations/{id}/subscription', {
          params: { path: { id: organizationId } },
          body: {
            plan: v.plan,
            status: v.status,
            monthly_event_limit: orNull(v.limit),
            current_period_end: v.periodEnd.trim() || null,
            ingest_rate_limit: orNull(v.ingest_rate_limit),
            api_rate_limit: orNull(v.api_rate_limit),
            retention_days: orNull(v.retention_days),
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
        <Group align="flex-start">
          {OVERRIDES.map((f) => (
            <NumberInput
              key={f.name}
              label={f.label}
              description={`${f.hint}; empty: the install-wide setting`}
              min={1}
              allowDecimal={false}
              {...form.getInputProps(f.name)}
              error={fieldError(save.error, f.name)}
            />
          ))}
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
