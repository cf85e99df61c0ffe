import { Checkbox, Modal, PasswordInput, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import { FormActions } from '../../components/form-actions';
import { ProblemAlert } from '../../components/problem-alert';
import { destinationChange, destinationValuesOf, type DestinationValues } from './destination-draft';
import type { Destination } from './destination-types';
import { fieldError } from './field-error';
import { filterSection, HEADERS_SECTION, HEALTH_SECTION, OptionSections, PACING_SECTION } from './option-sections';
import { POLICY_SECTION, transformSection } from './option-sections';
import type { Rule } from './rule-types';
import { WithTransformCode } from './with-transform-code';
import { targetDraftSendable, type TargetOptionsDraft } from './target-options-draft';

interface DestinationFormProps {
  rule: Rule;
  /** The destination to edit; undefined adds one. */
  destination?: Destination | undefined;
  onClose: () => void;
}

/**
 * Add or edit one of a rule's destinations: its target, signing secret (write-only), and the options it shares
 * with the rule — filter (with the dry run on the rule's webhooks), health threshold, delivery policy, headers.
 */
export function DestinationForm({ rule, destination, onClose }: DestinationFormProps) {
  const path = { id: rule.id, destinationId: destination?.id ?? '' };
  return (
    <WithTransformCode
      target={destination}
      queryKey={['rules', rule.id, 'destinations', destination?.id]}
      load={async (): Promise<Destination> =>
        dataOf(client.GET('/rules/{id}/destinations/{destinationId}', { params: { path } }))
      }
      title={`Edit destination ${destination?.name ?? ''}`}
      onClose={onClose}
    >
      {(full) => <DestinationFormModal rule={rule} destination={full} onClose={onClose} />}
    </WithTransformCode>
  );
}

function DestinationFormModal({ rule, destination, onClose }: DestinationFormProps) {
  const queryClient = useQueryClient();
  const form = useForm<DestinationValues>({ initialValues: destinationValuesOf(destination) });
  const setOption = (patch: Partial<TargetOptionsDraft>) =>
    form.setFieldValue('options', (draft) => ({ ...draft, ...patch }));
  const save = useMutation({
    mutationFn: async (values: DestinationValues): Promise<Destination> => {
      const body = destinationChange(values, destination);
      return destination
        ? dataOf(
            client.PATCH('/rules/{id}/destinations/{destinationId}', {
              params: { path: { id: rule.id, destinationId: destination.id } },
              body,
            }),
          )
        : dataOf(
            client.POST('/rules/{id}/destinations', {
              params: { path: { id: rule.id } },
              body: { ...body, target_url: values.targetUrl },
            }),
          );
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['rules', rule.id, 'destinations'] });
      onClose();
    },
  });
  // A filter that is not JSON yet, or a value the API would refuse, is shown in its section; nothing is sent yet.
  const submit = form.onSubmit((values) => {
    if (targetDraftSendable(values.options)) save.mutate(values);
  });
  const error = save.error;
  const sections = [
    filterSection({ id: destination?.id }),
    HEALTH_SECTION,
    POLICY_SECTION,
    HEADERS_SECTION,
    transformSection({ id: destination?.id }),
    PACING_SECTION,
  ];

  return (
    <Modal
      opened
      onClose={onClose}
      size="lg"
      title={destination ? `Edit destination ${destination.name}` : `New destination of ${rule.name}`}
    >
      <form onSubmit={submit}>
        <Stack>
          <ProblemAlert error={error} />
          <TextInput
            label="Name"
            description={
              destination ? 'Unique in the rule' : "Unique in the rule; empty: named after the target's host"
            }
            required={destination !== undefined}
            {...form.getInputProps('name')}
            error={fieldError(error, 'name')}
          />
          <TextInput
            label="Target URL"
            required
            {...form.getInputProps('targetUrl')}
            error={fieldError(error, 'target_url')}
          />
          <Textarea
            label="Description"
            {...form.getInputProps('description')}
            error={fieldError(error, 'description')}
          />
          <PasswordInput
            label="Signing secret"
            description={
              destination?.has_signing_secret
                ? 'A secret is set; type a new one to replace it'
                : "16 to 256 characters; none: the install's default secret, if any (never the rule's)"
            }
            autoComplete="new-password"
            {...form.getInputProps('secret')}
            error={fieldError(error, 'signing_secret')}
          />
          {destination?.has_signing_secret && !form.values.secret ? (
            <Checkbox label="Remove the signing secret" {...form.getInputProps('removeSecret', { type: 'checkbox' })} />
          ) : null}
          <Switch label="Active" {...form.getInputProps('active', { type: 'checkbox' })} />
          <OptionSections draft={form.values.options} set={setOption} error={error} rule={rule} sections={sections} />
          <FormActions onCancel={onClose} pending={save.isPending} submitLabel={destination ? 'Save' : 'Add'} />
        </Stack>
      </form>
    </Modal>
  );
}
