import { Checkbox, NativeSelect, NumberInput, PasswordInput, Stack, TextInput } from '@mantine/core';
import { fieldError } from './field-error';
import { choices, type SectionProps } from './rule-option-props';
import type { OptionsDraft } from './rule-options-draft';
import { HMAC_ALGORITHMS, SIGNATURE_ENCODINGS, VERIFICATION_PRESETS } from './rule-types';

const PRESETS = ['off', ...VERIFICATION_PRESETS] as const;
const PRESET_LABELS = {
  off: 'Off',
  github: 'GitHub (X-Hub-Signature-256)',
  stripe: 'Stripe (Stripe-Signature)',
  shopify: 'Shopify (X-Shopify-Hmac-Sha256)',
  slack: 'Slack (v0)',
  standard_webhooks: 'Standard Webhooks',
  hmac: 'Generic HMAC',
};
// Presets whose signature carries a timestamp, checked against a tolerance.
const TIMESTAMPED = new Set<string>(['stripe', 'slack', 'standard_webhooks']);

/** Inbound signature verification; the secret is write-only like the signing secret: set, replaced or removed. */
export function VerificationSection({ draft, set, error, rule }: SectionProps) {
  const preset = draft.verifyPreset;
  return (
    <Stack gap="xs">
      <NativeSelect
        label="Verify signatures with"
        description="A webhook whose signature does not verify is refused (401) and not stored"
        data={choices(PRESETS, PRESET_LABELS)}
        value={preset}
        onChange={(e) => set({ verifyPreset: e.currentTarget.value as OptionsDraft['verifyPreset'] })}
        error={fieldError(error, 'verification')}
      />
      {preset === 'hmac' ? (
        <>
          <TextInput
            label="Signature header"
            placeholder="x-signature"
            required
            value={draft.verifyHeader}
            onChange={(e) => set({ verifyHeader: e.currentTarget.value })}
            error={fieldError(error, 'verification.header')}
          />
          <NativeSelect
            label="Algorithm"
            data={[{ value: '', label: 'Default (sha256)' }, ...choices(HMAC_ALGORITHMS)]}
            value={draft.verifyAlgorithm}
            onChange={(e) => set({ verifyAlgorithm: e.currentTarget.value as OptionsDraft['verifyAlgorithm'] })}
            error={fieldError(error, 'verification.algorithm')}
          />
          <NativeSelect
            label="Encoding"
            data={[{ value: '', label: 'Default (hex)' }, ...choices(SIGNATURE_ENCODINGS)]}
            value={draft.verifyEncoding}
            onChange={(e) => set({ verifyEncoding: e.currentTarget.value as OptionsDraft['verifyEncoding'] })}
            error={fieldError(error, 'verification.encoding')}
          />
          <TextInput
            label="Prefix"
            placeholder="sha256="
            value={draft.verifyPrefix}
            onChange={(e) => set({ verifyPrefix: e.currentTarget.value })}
            error={fieldError(error, 'verification.prefix')}
          />
        </>
      ) : null}
      {TIMESTAMPED.has(preset) ? (
        <NumberInput
          label="Timestamp tolerance (seconds)"
          description="The oldest signed timestamp accepted; empty: 300"
          min={10}
          max={86_400}
          value={draft.verifyToleranceSeconds}
          onChange={(value) => set({ verifyToleranceSeconds: value })}
          error={fieldError(error, 'verification.tolerance_seconds')}
        />
      ) : null}
      {preset !== 'off' || rule?.has_verification_secret ? (
        <PasswordInput
          label="Verification secret"
          description={
            rule?.has_verification_secret
              ? 'A verification secret is set; type a new one to replace it'
              : "Not set: the sender's signing secret"
          }
          autoComplete="new-password"
          value={draft.verificationSecret}
          onChange={(e) => set({ verificationSecret: e.currentTarget.value })}
          error={fieldError(error, 'verification_secret')}
        />
      ) : null}
      {rule?.has_verification_secret && !draft.verificationSecret ? (
        <Checkbox
          label="Remove the verification secret"
          checked={draft.removeVerificationSecret}
          onChange={(e) => set({ removeVerificationSecret: e.currentTarget.checked })}
        />
      ) : null}
    </Stack>
  );
}
