import { Checkbox, Modal, PasswordInput, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import type { paths } from '@relay/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { FormActions } from '../../components/form-actions';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from './field-error';
import { draftOf, optionsChange, type OptionsDraft } from './rule-options-draft';
import { RuleOptionsFields } from './rule-options-fields';
import type { Rule } from './rule-types';

/** The fields a change sends: only those that differ from the stored provider. */
type RuleChange = NonNullable<paths['/rules/{id}']['patch']['requestBody']>['content']['application/json'];

interface RuleFormProps {
  /** The provider to edit; undefined creates one. */
  rule?: Rule;
  onClose: () => void;
}

/** Create or edit a provider. The signing secret is write-only: it is never shown, only set, replaced or removed. */
export function RuleForm({ rule, onClose }: RuleFormProps) {
  const queryClient = useQueryClient();
  const [source, setSource] = useState(rule?.source ?? '');
  const [targetUrl, setTargetUrl] = useState(rule?.target_url ?? '');
  const [description, setDescription] = useState(rule?.description ?? '');
  const [secret, setSecret] = useState('');
  const [removeSecret, setRemoveSecret] = useState(false);
  const [active, setActive] = useState(rule?.active ?? true);
  const [options, setOptions] = useState<OptionsDraft>(() => draftOf(rule));
  const setOption = (patch: Partial<OptionsDraft>) => setOptions((draft) => ({ ...draft, ...patch }));

  const save = useMutation({
    mutationFn: async (): Promise<Rule> => {
      const body: RuleChange = {};
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
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const error = save.error;

  return (
    <Modal opened onClose={onClose} size="lg" title={rule ? `Edit provider ${rule.source}` : 'New provider'}>
      <form onSubmit={submit}>
        <Stack>
          <ProblemAlert error={error} />
          <TextInput
            label="Source"
            description="The first path segment of the ingest URL"
            required
            value={source}
            onChange={(e) => setSource(e.currentTarget.value)}
            error={fieldError(error, 'source')}
          />
          <TextInput
            label="Target URL"
            required
            value={targetUrl}
            onChange={(e) => setTargetUrl(e.currentTarget.value)}
            error={fieldError(error, 'target_url')}
          />
          <Textarea
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={fieldError(error, 'description')}
          />
          <PasswordInput
            label="Signing secret"
            description={
              rule?.has_signing_secret ? 'A secret is set; type a new one to replace it' : '16 to 256 characters'
            }
            autoComplete="new-password"
            value={secret}
            onChange={(e) => setSecret(e.currentTarget.value)}
            error={fieldError(error, 'signing_secret')}
          />
          {rule?.has_signing_secret && !secret ? (
            <Checkbox
              label="Remove the signing secret"
              checked={removeSecret}
              onChange={(e) => setRemoveSecret(e.currentTarget.checked)}
            />
          ) : null}
          <Switch label="Active" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
          <RuleOptionsFields draft={options} set={setOption} error={error} rule={rule} />
          <FormActions onCancel={onClose} pending={save.isPending} submitLabel={rule ? 'Save' : 'Create'} />
        </Stack>
      </form>
    </Modal>
  );
}
