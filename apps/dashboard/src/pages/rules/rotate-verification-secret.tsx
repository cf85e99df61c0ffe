import { Button, Group, NumberInput, PasswordInput, Stack, Text } from '@mantine/core';
import { dataOf } from '@relay/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import type { Rule } from './rule-types';

/**
 * Replaces the secret that verifies a provider's inbound signatures; the old one is still accepted for a window,
 * since the provider and the relay cannot switch at the same instant.
 */
export function RotateVerificationSecret({ rule }: { rule: Rule }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState('');
  const [hours, setHours] = useState<number | string>(24);
  const rotate = useMutation({
    mutationFn: async (): Promise<Rule> =>
      dataOf(
        client.POST('/rules/{id}/verification-secret/rotate', {
          params: { path: { id: rule.id } },
          body: { verification_secret: secret, previous_secret_valid_for_seconds: Math.round(Number(hours) * 3600) },
        }),
      ),
    onSuccess: async () => {
      setSecret('');
      await queryClient.invalidateQueries({ queryKey: ['rules'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rotate.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Rotate verification secret">
      <Stack gap="xs">
        <ProblemAlert error={rotate.error} />
        <Group align="flex-start">
          <PasswordInput
            label="New verification secret"
            required
            autoComplete="new-password"
            value={secret}
            onChange={(e) => setSecret(e.currentTarget.value)}
            error={fieldError(rotate.error, 'verification_secret')}
          />
          <NumberInput
            label="Old secret still accepted for (hours)"
            min={0}
            max={720}
            value={hours}
            onChange={setHours}
            error={fieldError(rotate.error, 'previous_secret_valid_for_seconds')}
          />
          <Button type="submit" mt={25} loading={rotate.isPending}>
            Rotate verification secret
          </Button>
        </Group>
        {rotate.isSuccess ? <Text size="sm">The new verification secret is in use.</Text> : null}
      </Stack>
    </form>
  );
}
