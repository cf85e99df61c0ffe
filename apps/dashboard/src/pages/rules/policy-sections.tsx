import { Group, NativeSelect, NumberInput, SimpleGrid, Stack } from '@mantine/core';
import { fieldError } from './field-error';
import { choices, type SectionProps } from './rule-option-props';
import type { SpanUnit, TargetOptionsDraft } from './target-options-draft';

const UNITS = ['hours', 'days'] as const satisfies readonly SpanUnit[];

/**
 * How long a target may fail with no success before it turns unhealthy: the rule's (its events then pause) or a
 * destination's (its deliveries then pause).
 */
export function HealthSection({ draft, set, error }: SectionProps<TargetOptionsDraft>) {
  return (
    <Group align="flex-start" grow>
      <NumberInput
        label="Unhealthy after"
        description="Failing with no success this long turns the target unhealthy; empty: the default (5 days)"
        min={1}
        value={draft.unhealthyAfter}
        onChange={(value) => set({ unhealthyAfter: value })}
        error={fieldError(error, 'unhealthy_after_seconds')}
      />
      <NativeSelect
        label="Unit"
        data={choices(UNITS)}
        value={draft.unhealthyUnit}
        onChange={(e) => set({ unhealthyUnit: e.currentTarget.value as SpanUnit })}
      />
    </Group>
  );
}

/** Attempts, backoff and timeout of this target; an empty field keeps the install-wide setting. */
export function DeliveryPolicySection({ draft, set, error }: SectionProps<TargetOptionsDraft>) {
  return (
    <Stack gap="xs">
      <SimpleGrid cols={2}>
        <NumberInput
          label="Max attempts"
          min={1}
          max={50}
          value={draft.maxAttempts}
          onChange={(value) => set({ maxAttempts: value })}
          error={fieldError(error, 'delivery_policy.max_attempts')}
        />
        <NumberInput
          label="Timeout (seconds)"
          min={1}
          max={120}
          value={draft.timeoutSeconds}
          onChange={(value) => set({ timeoutSeconds: value })}
          error={fieldError(error, 'delivery_policy.timeout_seconds')}
        />
        <NumberInput
          label="Backoff base (seconds)"
          min={1}
          max={3_600}
          value={draft.backoffBaseSeconds}
          onChange={(value) => set({ backoffBaseSeconds: value })}
          error={fieldError(error, 'delivery_policy.backoff_base_seconds')}
        />
        <NumberInput
          label="Backoff cap (seconds)"
          min={1}
          max={604_800}
          value={draft.backoffCapSeconds}
          onChange={(value) => set({ backoffCapSeconds: value })}
          error={fieldError(error, 'delivery_policy.backoff_cap_seconds') ?? fieldError(error, 'delivery_policy')}
        />
      </SimpleGrid>
    </Stack>
  );
}
