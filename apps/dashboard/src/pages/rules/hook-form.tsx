import { Button, Group, NativeSelect, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import { HOOK_TRIGGERS, type Hook, type HookTrigger } from './rule-types';

const TRIGGER_LABELS: Record<HookTrigger, string> = {
  provider_succeeded: 'When a delivery succeeds',
  provider_failed: 'When a delivery fails',
};

/** Attaches a hook to a rule; its trigger is fixed once created. */
export function HookForm({ ruleId }: { ruleId: string }) {
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { name: '', targetUrl: '', trigger: 'provider_failed' as HookTrigger, description: '' },
  });
  const create = useMutation({
    mutationFn: async ({ name, targetUrl, trigger, description }: typeof form.values): Promise<Hook> =>
      dataOf(
        client.POST('/rules/{id}/hooks', {
          params: { path: { id: ruleId } },
          // Left empty, the API names the hook after its trigger.
          body: { ...(name ? { name } : {}), target_url: targetUrl, trigger, description: description || null },
        }),
      ),
    onSuccess: async () => {
      form.setValues({ name: '', targetUrl: '', description: '' });
      await queryClient.invalidateQueries({ queryKey: ['rules', ruleId, 'hooks'] });
    },
  });
  const submit = form.onSubmit((values) => create.mutate(values));
  return (
    <form onSubmit={submit} aria-label="New hook">
      <ProblemAlert error={create.error} />
      <Group align="flex-start" mt="sm">
        <TextInput
          label="Hook name"
          placeholder="the trigger"
          {...form.getInputProps('name')}
          error={fieldError(create.error, 'name')}
        />
        <TextInput
          label="Hook target URL"
          required
          {...form.getInputProps('targetUrl')}
          error={fieldError(create.error, 'target_url')}
        />
        <NativeSelect
          label="Trigger"
          data={HOOK_TRIGGERS.map((value) => ({ value, label: TRIGGER_LABELS[value] }))}
          {...form.getInputProps('trigger')}
          error={fieldError(create.error, 'trigger')}
        />
        <TextInput
          label="Description"
          {...form.getInputProps('description')}
          error={fieldError(create.error, 'description')}
        />
        <Button type="submit" mt={25} loading={create.isPending}>
          Add hook
        </Button>
      </Group>
    </form>
  );
}
