import { Alert, Button, JsonInput, NativeSelect, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { AnchorLink } from '../../components/links';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { rulesQuery } from '../rules/rules-query';

interface Sent {
  id: string;
  status: 'queued';
  source: string;
  target_url: string;
  provider_id: string | null;
}

type Mode = 'rule' | 'manual';

const BODY_EXAMPLE = '{\n  "hello": "world"\n}';

/** Parses the typed JSON body; a syntax error is reported under the field before anything is sent. */
function parseBody(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : 'not JSON' };
  }
}

/** /app/send: sends a webhook through the relay, through a rule or to a source and target typed here. */
export function SendPage() {
  const { canWrite } = useSession();
  const form = useForm({
    initialValues: { mode: 'rule' as Mode, ruleId: '', source: '', targetUrl: '', body: BODY_EXAMPLE },
    validate: {
      body: (text) => {
        const parsed = parseBody(text);
        return parsed.ok ? null : parsed.message;
      },
    },
  });
  const { mode, ruleId, source, targetUrl } = form.values;
  const rules = useQuery({ ...rulesQuery, enabled: canWrite });
  const send = useMutation({
    mutationFn: async (payload: unknown): Promise<Sent> =>
      dataOf(
        client.POST('/api/send', {
          body:
            mode === 'rule' ? { provider_id: ruleId, body: payload } : { source, target_url: targetUrl, body: payload },
        }),
      ),
  });
  // Validation has passed, so the body parses.
  const submit = form.onSubmit((values) => send.mutate(JSON.parse(values.body)));
  const activeRules = (rules.data?.rules ?? [])
    .filter((r) => r.active)
    .map((r) => ({ value: r.id, label: `${r.source} → ${r.target_url}` }));

  if (!canWrite)
    return (
      <Stack>
        <Title order={2}>Send a webhook</Title>
        <Text c="dimmed">Only admins send webhooks through the relay.</Text>
      </Stack>
    );
  return (
    <Stack maw={720}>
      <Title order={2}>Send a webhook</Title>
      <SegmentedControl
        value={mode}
        onChange={(value) => form.setFieldValue('mode', value)}
        data={[
          { value: 'rule', label: 'Through a rule' },
          { value: 'manual', label: 'Manual' },
        ]}
      />
      <form onSubmit={submit}>
        <Stack>
          <ProblemAlert error={send.error ?? rules.error} />
          {mode === 'rule' ? (
            <NativeSelect
              label="Rule"
              required
              data={[{ value: '', label: 'Pick an active rule' }, ...activeRules]}
              {...form.getInputProps('ruleId')}
              error={fieldError(send.error, 'provider_id')}
            />
          ) : (
            <>
              <TextInput
                label="Source"
                required
                {...form.getInputProps('source')}
                error={fieldError(send.error, 'source')}
              />
              <TextInput
                label="Target URL"
                description="Empty: the organization's default target"
                {...form.getInputProps('targetUrl')}
                error={fieldError(send.error, 'target_url')}
              />
            </>
          )}
          <JsonInput
            label="Body (JSON)"
            // A fixed height: autosize listens to document.fonts, which jsdom (the component tests) lacks.
            rows={8}
            validationError="Not valid JSON"
            {...form.getInputProps('body')}
            error={form.errors.body ?? fieldError(send.error, 'body')}
          />
          <Button type="submit" loading={send.isPending}>
            Send
          </Button>
        </Stack>
      </form>
      {send.data ? (
        <Alert color="green" title="Queued for delivery">
          Event{' '}
          <AnchorLink to="/events/$id" params={{ id: send.data.id }}>
            {send.data.id}
          </AnchorLink>{' '}
          goes to {send.data.target_url}.
        </Alert>
      ) : null}
    </Stack>
  );
}
