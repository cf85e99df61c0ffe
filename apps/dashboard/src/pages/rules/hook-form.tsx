import { Button, Group, NativeSelect, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import { HOOK_TRIGGERS, type Hook, type HookTrigger } from './rule-types';

const TRIGGER_LABELS: Record<HookTrigger, string> = {
  provider_succeeded: 'When a delivery succeeds',
  provider_failed: 'When a delivery fails',
};

/** Attaches a hook to a provider; its trigger is fixed once created. */
export function HookForm({ ruleId }: { ruleId: string }) {
  const queryClient = useQueryClient();
  const [targetUrl, setTargetUrl] = useState('');
  const [trigger, setTrigger] = useState<HookTrigger>('provider_failed');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: async (): Promise<Hook> =>
      dataOf(
        client.POST('/rules/{id}/hooks', {
          params: { path: { id: ruleId } },
          body: { target_url: targetUrl, trigger, description: description || null },
        }),
      ),
    onSuccess: async () => {
      setTargetUrl('');
      setDescription('');
      await queryClient.invalidateQueries({ queryKey: ['rules', ruleId, 'hooks'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="New hook">
      <ProblemAlert error={create.error} />
      <Group align="flex-start" mt="sm">
        <TextInput
          label="Hook target URL"
          required
          value={targetUrl}
          onChange={(e) => setTargetUrl(e.currentTarget.value)}
          error={fieldError(create.error, 'target_url')}
        />
        <NativeSelect
          label="Trigger"
          data={HOOK_TRIGGERS.map((value) => ({ value, label: TRIGGER_LABELS[value] }))}
          value={trigger}
          onChange={(e) => setTrigger(e.currentTarget.value as HookTrigger)}
          error={fieldError(create.error, 'trigger')}
        />
        <TextInput
          label="Description"
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          error={fieldError(create.error, 'description')}
        />
        <Button type="submit" mt={25} loading={create.isPending}>
          Add hook
        </Button>
      </Group>
    </form>
  );
}
