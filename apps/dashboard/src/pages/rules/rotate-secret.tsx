import { Button, Group, NumberInput, PasswordInput, Stack, Text } from '@mantine/core';
import { dataOf } from '@relay/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import type { Rule } from './rule-types';

/** Replaces a provider's signing secret; the old one keeps signing for a window so targets can switch over. */
export function RotateSecret({ rule }: { rule: Rule }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState('');
  const [hours, setHours] = useState<number | string>(24);
  const rotate = useMutation({
    mutationFn: async (): Promise<Rule> =>
      dataOf(
        client.POST('/rules/{id}/secret/rotate', {
          params: { path: { id: rule.id } },
          body: { signing_secret: secret, previous_secret_valid_for_seconds: Math.round(Number(hours) * 3600) },
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
    <form onSubmit={submit} aria-label="Rotate signing secret">
      <Stack gap="xs">
        <ProblemAlert error={rotate.error} />
        {rule.previous_secret_expires_at ? (
          <Text size="sm">
            The replaced secret also signs until {new Date(rule.previous_secret_expires_at).toLocaleString()}.
          </Text>
        ) : null}
        <Group align="flex-start">
          <PasswordInput
            label="New signing secret"
            required
            autoComplete="new-password"
            value={secret}
            onChange={(e) => setSecret(e.currentTarget.value)}
            error={fieldError(rotate.error, 'signing_secret')}
          />
          <NumberInput
            label="Old secret keeps signing for (hours)"
            min={0}
            max={720}
            value={hours}
            onChange={setHours}
            error={fieldError(rotate.error, 'previous_secret_valid_for_seconds')}
          />
          <Button type="submit" mt={25} loading={rotate.isPending}>
            Rotate
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
