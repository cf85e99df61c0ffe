import { Card, Checkbox, Modal, PasswordInput, Stack, Switch, Textarea, TextInput, Title } from '@mantine/core';
import type { paths } from '@relay/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { FormActions } from '../../components/form-actions';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import { targetDraftSendable } from './target-options-draft';
import { draftOf, optionsChange, type OptionsDraft } from './rule-options-draft';
import { RuleOptionsFields } from './rule-options-fields';
import type { Rule } from './rule-types';
import { WithTransformCode } from './with-transform-code';

/** The fields a change sends: only those that differ from the stored rule. */
type RuleChange = NonNullable<paths['/rules/{id}']['patch']['requestBody']>['content']['application/json'];

interface RuleFormProps {
  /** The rule to edit; undefined creates one. */
  rule?: Rule | undefined;
  onClose: () => void;
  /** On the rule's own page: the fields replace the page's details in place (a card) rather than a dialog. */
  inline?: boolean;
}

/** Create or edit a rule. The signing secret is write-only: it is never shown, only set, replaced or removed. */
export function RuleForm({ rule, onClose, inline = false }: RuleFormProps) {
  return (
    <WithTransformCode
      target={rule}
      queryKey={['rules', rule?.id]}
      load={async (): Promise<Rule> => dataOf(client.GET('/rules/{id}', { params: { path: { id: rule?.id ?? '' } } }))}
      title={`Edit rule ${rule?.name ?? ''}`}
      onClose={onClose}
    >
      {(full) => <RuleFormModal rule={full} onClose={onClose} inline={inline} />}
    </WithTransformCode>
  );
}

function RuleFormModal({ rule, onClose, inline }: RuleFormProps) {
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: {
      name: rule?.name ?? '',
      source: rule?.source ?? '',
      targetUrl: rule?.target_url ?? '',
      description: rule?.description ?? '',
      secret: '',
      removeSecret: false,
      active: rule?.active ?? true,
      options: draftOf(rule),
    },
  });
  const setOption = (patch: Partial<OptionsDraft>) =>
    form.setFieldValue('options', (draft) => ({ ...draft, ...patch }));

  const save = useMutation({
    mutationFn: async (values: typeof form.values): Promise<Rule> => {
      const { name, source, targetUrl, description, secret, removeSecret, active, options } = values;
      const body: RuleChange = {};
      // Left empty on a new rule, the API names it after its source.
      if (rule ? name !== rule.name : name) body.name = name;
      if (!rule || source !== rule.source) body.source = source;
      if (!rule || targetUrl !== rule.target_url) body.target_url = targetUrl;
      if (!rule || description !== (rule.description ?? '')) body.description = description || null;
      if (!rule || active !== rule.active) body.active = active;
      // Only a typed secret is sent: an empty field keeps the stored one.
      if (secret) body.signing_secret = secret;
      else if (rule && removeSecret) body.signing_secret = null;
      Object.assign(body, optionsChange(options, rule));
      return rule
        ? dataOf(client.PATCH('/rules/{id}', { params: { path: { id: rule.id } }, body }))
        : dataOf(client.POST('/rules', { body: { ...body, source, target_url: targetUrl } }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['rules'] });
      onClose();
    },
  });
  // A filter that is not JSON yet, or a value the API would refuse, is shown in its section; nothing is sent yet.
  const submit = form.onSubmit((values) => {
    if (targetDraftSendable(values.options)) save.mutate(values);
  });
  const error = save.error;
  const title = rule ? `Edit rule ${rule.name}` : 'New rule';

  const fields = (
    <form onSubmit={submit} aria-label={title}>
      <Stack>
        <ProblemAlert error={error} />
        <TextInput
          label="Name"
          description={
            rule ? 'Unique in the organization' : 'Unique in the organization; empty: named after the source'
          }
          required={rule !== undefined}
          {...form.getInputProps('name')}
          error={fieldError(error, 'name')}
        />
        <TextInput
          label="Source"
          description="The first path segment of the ingest URL"
          required
          {...form.getInputProps('source')}
          error={fieldError(error, 'source')}
        />
        <TextInput
          label="Target URL"
          required
          {...form.getInputProps('targetUrl')}
          error={fieldError(error, 'target_url')}
        />
        <Textarea label="Description" {...form.getInputProps('description')} error={fieldError(error, 'description')} />
        <PasswordInput
          label="Signing secret"
          description={
            rule?.has_signing_secret ? 'A secret is set; type a new one to replace it' : '16 to 256 characters'
          }
          autoComplete="new-password"
          {...form.getInputProps('secret')}
          error={fieldError(error, 'signing_secret')}
        />
        {rule?.has_signing_secret && !form.values.secret ? (
          <Checkbox label="Remove the signing secret" {...form.getInputProps('removeSecret', { type: 'checkbox' })} />
        ) : null}
        <Switch label="Active" {...form.getInputProps('active', { type: 'checkbox' })} />
        <RuleOptionsFields draft={form.values.options} set={setOption} error={error} rule={rule} />
        <FormActions onCancel={onClose} pending={save.isPending} submitLabel={rule ? 'Save' : 'Create'} />
      </Stack>
    </form>
  );
  return inline ? (
    <Card withBorder component="section">
      <Title order={3} mb="sm">
        {title}
      </Title>
      {fields}
    </Card>
  ) : (
    <Modal opened onClose={onClose} size="lg" title={title}>
      {fields}
    </Modal>
  );
}
