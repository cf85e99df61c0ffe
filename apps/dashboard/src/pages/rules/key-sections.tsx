import { NativeSelect, NumberInput, Stack, TextInput } from '@mantine/core';
import { fieldError } from './field-error';
import { choices, type SectionProps } from './rule-option-props';
import type { KeyMode, OrderingMode } from './rule-options-draft';
import { DEDUP_PRESETS } from './rule-types';

// The two options keyed by a header or a JSON pointer: deduplication and ordering.

const DEDUP_MODES = ['off', 'preset', 'header', 'json_pointer'] as const satisfies readonly KeyMode[];
const ORDERING_MODES = ['off', 'source', 'header', 'json_pointer'] as const satisfies readonly OrderingMode[];
const PRESET_LABELS = {
  github: 'GitHub (X-GitHub-Delivery)',
  stripe: 'Stripe (event id)',
  shopify: 'Shopify (X-Shopify-Webhook-Id)',
  standard_webhooks: 'Standard Webhooks (webhook-id)',
};

export function DedupSection({ draft, set, error }: SectionProps) {
  return (
    <Stack gap="xs">
      <NativeSelect
        label="Deduplicate by"
        description="A webhook whose key was seen within the window is answered, not stored again"
        data={choices(DEDUP_MODES, {
          off: 'Off',
          preset: 'A sender preset',
          header: 'A header',
          json_pointer: 'A JSON pointer into the payload',
        })}
        value={draft.dedupMode}
        onChange={(e) => set({ dedupMode: e.currentTarget.value as KeyMode })}
        error={fieldError(error, 'dedup')}
      />
      {draft.dedupMode === 'preset' ? (
        <NativeSelect
          label="Dedup preset"
          data={choices(DEDUP_PRESETS, PRESET_LABELS)}
          value={draft.dedupPreset}
          onChange={(e) => set({ dedupPreset: e.currentTarget.value as (typeof DEDUP_PRESETS)[number] })}
          error={fieldError(error, 'dedup.preset')}
        />
      ) : null}
      {draft.dedupMode === 'header' ? (
        <TextInput
          label="Dedup header"
          placeholder="x-delivery-id"
          required
          value={draft.dedupHeader}
          onChange={(e) => set({ dedupHeader: e.currentTarget.value })}
          error={fieldError(error, 'dedup.header')}
        />
      ) : null}
      {draft.dedupMode === 'json_pointer' ? (
        <TextInput
          label="Dedup JSON pointer"
          placeholder="/id"
          required
          value={draft.dedupPointer}
          onChange={(e) => set({ dedupPointer: e.currentTarget.value })}
          error={fieldError(error, 'dedup.json_pointer')}
        />
      ) : null}
      {draft.dedupMode !== 'off' ? (
        <NumberInput
          label="Dedup window (hours)"
          description="How long a key is remembered: 1 minute to 30 days"
          min={0.02}
          max={720}
          decimalScale={2}
          value={draft.dedupWindowHours}
          onChange={(value) => set({ dedupWindowHours: value })}
          error={fieldError(error, 'dedup.window_seconds')}
        />
      ) : null}
    </Stack>
  );
}

export function OrderingSection({ draft, set, error }: SectionProps) {
  return (
    <Stack gap="xs">
      <NativeSelect
        label="Order deliveries by"
        description="Events with the same key are delivered one at a time, in ingest order; other keys keep flowing"
        data={choices(ORDERING_MODES, {
          off: 'Off (in parallel)',
          source: 'The whole source',
          header: 'A header',
          json_pointer: 'A JSON pointer into the payload',
        })}
        value={draft.orderingMode}
        onChange={(e) => set({ orderingMode: e.currentTarget.value as OrderingMode })}
        error={fieldError(error, 'ordering')}
      />
      {draft.orderingMode === 'header' ? (
        <TextInput
          label="Ordering header"
          placeholder="x-customer-id"
          required
          value={draft.orderingHeader}
          onChange={(e) => set({ orderingHeader: e.currentTarget.value })}
          error={fieldError(error, 'ordering.header')}
        />
      ) : null}
      {draft.orderingMode === 'json_pointer' ? (
        <TextInput
          label="Ordering JSON pointer"
          placeholder="/data/object/customer"
          required
          value={draft.orderingPointer}
          onChange={(e) => set({ orderingPointer: e.currentTarget.value })}
          error={fieldError(error, 'ordering.json_pointer')}
        />
      ) : null}
    </Stack>
  );
}
