import { Text } from '@mantine/core';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { SecretRotationForm } from './secret-rotation-form';
import type { Rule } from './rule-types';

const text = {
  title: 'Rotate verification secret',
  secretLabel: 'New verification secret',
  windowLabel: 'Old secret still accepted for (hours)',
  button: 'Rotate verification secret',
  secretField: 'verification_secret',
};

/**
 * Replaces the secret that verifies a sender's inbound signatures; the old one is still accepted for a window,
 * since the sender and the relay cannot switch at the same instant.
 */
export function RotateVerificationSecret({ rule }: { rule: Rule }) {
  const rotate = (secret: string, windowSeconds: number) =>
    dataOf(
      client.POST('/rules/{id}/verification-secret/rotate', {
        params: { path: { id: rule.id } },
        body: { verification_secret: secret, previous_secret_valid_for_seconds: windowSeconds },
      }),
    );
  const until = rule.previous_verification_secret_expires_at;
  const notice = until ? (
    <Text size="sm">The replaced secret is also accepted until {new Date(until).toLocaleString()}.</Text>
  ) : null;
  return <SecretRotationForm text={text} rotate={rotate} notice={notice} />;
}
