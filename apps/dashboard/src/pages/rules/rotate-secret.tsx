import { Text } from '@mantine/core';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { SecretRotationForm } from './secret-rotation-form';
import type { Rule } from './rule-types';

const text = {
  title: 'Rotate signing secret',
  secretLabel: 'New signing secret',
  windowLabel: 'Old secret keeps signing for (hours)',
  button: 'Rotate',
  secretField: 'signing_secret',
};

/** Replaces a rule's signing secret; the old one keeps signing for a window so targets can switch over. */
export function RotateSecret({ rule }: { rule: Rule }) {
  const rotate = (secret: string, windowSeconds: number) =>
    dataOf(
      client.POST('/rules/{id}/secret/rotate', {
        params: { path: { id: rule.id } },
        body: { signing_secret: secret, previous_secret_valid_for_seconds: windowSeconds },
      }),
    );
  const until = rule.previous_secret_expires_at;
  const notice = until ? (
    <Text size="sm">The replaced secret also signs until {new Date(until).toLocaleString()}.</Text>
  ) : null;
  return <SecretRotationForm text={text} rotate={rotate} notice={notice} />;
}
