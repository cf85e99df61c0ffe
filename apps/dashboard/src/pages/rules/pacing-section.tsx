import { NativeSelect, NumberInput, SimpleGrid, Stack, Text } from '@mantine/core';
import { RATE_LIMIT_PERIODS, TRANSFORM_PACING_LIMITS } from '@relay/client';
import { fieldError } from './field-error';
import { choices, type SectionProps } from './rule-option-props';
import { transformPacingProblems, type RatePeriod, type TransformPacingDraft } from './transform-pacing-draft';

/**
 * Pacing (docs/rules.md): at most so many deliveries per period to this target, and at most so many in flight at
 * once, over every worker; a delivery over either waits (no attempt counted). Empty: no limit. A value out of
 * bounds is shown as refused, not quietly changed to the bound (no clamping).
 */
export function PacingSection({ draft, set, error }: SectionProps<TransformPacingDraft>) {
  const problems = transformPacingProblems(draft);
  const shown = (field: string) => problems[field] ?? fieldError(error, field);
  const { rateLimit, maxConcurrency } = TRANSFORM_PACING_LIMITS;
  return (
    <Stack gap="xs">
      <SimpleGrid cols={3}>
        <NumberInput
          label="Rate limit"
          description="Deliveries per period; empty: no limit"
          min={1}
          max={rateLimit}
          allowDecimal={false}
          clampBehavior="none"
          value={draft.rateLimit}
          onChange={(value) => set({ rateLimit: value })}
          error={shown('rate_limit.limit') ?? fieldError(error, 'rate_limit')}
        />
        <NativeSelect
          label="Per"
          description="The period the limit counts in"
          data={choices(RATE_LIMIT_PERIODS)}
          value={draft.ratePeriod}
          onChange={(e) => set({ ratePeriod: e.currentTarget.value as RatePeriod })}
          error={fieldError(error, 'rate_limit.period')}
        />
        <NumberInput
          label="Burst"
          description="At once after a quiet spell; empty: the limit"
          min={1}
          max={rateLimit}
          allowDecimal={false}
          clampBehavior="none"
          value={draft.rateBurst}
          onChange={(value) => set({ rateBurst: value })}
          error={shown('rate_limit.burst')}
        />
      </SimpleGrid>
      <NumberInput
        label="Max concurrency"
        description="Deliveries in flight at once; empty: no limit"
        min={1}
        max={maxConcurrency}
        allowDecimal={false}
        clampBehavior="none"
        value={draft.maxConcurrency}
        onChange={(value) => set({ maxConcurrency: value })}
        error={shown('max_concurrency')}
      />
      <Text size="xs" c="dimmed">
        A delivery over the rate or the concurrency waits its turn, with no attempt counted. A 429 or 503 with
        Retry-After holds this target&apos;s next deliveries until then.
      </Text>
    </Stack>
  );
}
