import { Button, Group, NumberInput, PasswordInput, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import type { ReactNode } from 'react';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import type { Rule } from './rule-types';

export interface SecretRotationText {
  /** The form's accessible name. */
  title: string;
  button: string;
  secretLabel: string;
  windowLabel: string;
  /** The body field the API names in its problem document for the secret. */
  secretField: string;
}

/**
 * A rule secret replaced with a window in which the old one still works (signing and verification secrets alike):
 * the other side cannot switch at the same instant.
 */
export function SecretRotationForm(props: {
  text: SecretRotationText;
  rotate: (secret: string, windowSeconds: number) => Promise<Rule>;
  notice?: ReactNode;
}) {
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { secret: '', hours: 24 as number | string } });
  const rotate = useMutation({
    mutationFn: ({ secret, hours }: typeof form.values) => props.rotate(secret, Math.round(Number(hours) * 3600)),
    onSuccess: async () => {
      form.setFieldValue('secret', '');
      await queryClient.invalidateQueries({ queryKey: ['rules'] });
    },
  });
  const submit = form.onSubmit((values) => rotate.mutate(values));
  const { text } = props;
  return (
    <form onSubmit={submit} aria-label={text.title}>
      <Stack gap="xs">
        <ProblemAlert error={rotate.error} />
        {props.notice}
        <Group align="flex-start">
          <PasswordInput
            label={text.secretLabel}
            required
            autoComplete="new-password"
            {...form.getInputProps('secret')}
            error={fieldError(rotate.error, text.secretField)}
          />
          <NumberInput
            label={text.windowLabel}
            min={0}
            max={720}
            {...form.getInputProps('hours')}
            error={fieldError(rotate.error, 'previous_secret_valid_for_seconds')}
          />
          <Button type="submit" mt={25} loading={rotate.isPending}>
            {text.button}
          </Button>
        </Group>
        {rotate.isSuccess ? <Text size="sm">The new secret is in use.</Text> : null}
      </Stack>
    </form>
  );
}
