import { Button, Checkbox, Group, Input, Loader, Stack, Text } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { fieldError } from './field-error';
import type { SectionProps } from './rule-option-props';
import { TRANSFORM_EXAMPLE, transformPacingProblems, type TransformPacingDraft } from './transform-pacing-draft';
import { TransformTestPanel } from './transform-test-panel';

// CodeMirror is loaded when a transform section is first opened, never with the dashboard's first page.
const CodeEditor = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

interface TransformSectionProps extends SectionProps<TransformPacingDraft> {
  /** Set in a destination's form; `id` once the destination is saved (the test then runs as that destination). */
  destination?: { id?: string | undefined } | undefined;
}

/**
 * A transform (docs/transformations.md): JavaScript that reshapes the webhook before it goes to this target, in
 * an editor with highlighting, tried as typed on the rule's stored webhooks; and whether its path and query count.
 */
export function TransformSection({ draft, set, error, rule, destination }: TransformSectionProps) {
  const problem = transformPacingProblems(draft).transform ?? fieldError(error, 'transform');
  const empty = draft.transformText.trim() === '';
  return (
    <Stack gap="xs">
      <Input.Wrapper
        label="Transform (JavaScript)"
        description={
          "addHandler('transform', (request, context) => request): request is { body, headers, path, query } of " +
          'the webhook as received; what it returns is sent. Runs in a sandbox with a time and memory limit.'
        }
        error={problem}
      >
        <Suspense fallback={<Loader size="sm" aria-label="Loading the editor" />}>
          <CodeEditor
            label="Transform code"
            value={draft.transformText}
            onChange={(transformText) => set({ transformText })}
            invalid={problem !== undefined}
          />
        </Suspense>
      </Input.Wrapper>
      <Group gap="xs">
        {empty ? (
          <Button size="xs" variant="default" onClick={() => set({ transformText: TRANSFORM_EXAMPLE })}>
            Insert example
          </Button>
        ) : (
          <Button size="xs" variant="default" color="red" onClick={() => set({ transformText: '' })}>
            Remove transform
          </Button>
        )}
      </Group>
      <Checkbox
        label="Forward path and query"
        description="Append the transform's returned path and query to the target URL (off: the target URL as set)"
        checked={draft.forwardPathQuery}
        onChange={(e) => set({ forwardPathQuery: e.currentTarget.checked })}
      />
      {rule ? (
        <TransformTestPanel rule={rule} destinationId={destination?.id} code={draft.transformText} />
      ) : (
        <Text size="sm" c="dimmed">
          Once the rule is saved and has received webhooks, the transform can be tested on them here.
        </Text>
      )}
    </Stack>
  );
}
