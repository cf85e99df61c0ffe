import { Alert, List, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { problemText } from './problem-text';

/**
 * Shows a failed request as words (problem-text.ts): a title, a sentence, each field's message and the request id
 * to quote to an administrator; never the raw document, never a blank page.
 */
export function ProblemAlert({ error }: { error: unknown }) {
  const shown = useRef<HTMLDivElement>(null);
  // A long form's alert sits above its fields, out of view from the submit button that caused it: brought into view.
  // (jsdom has no scrollIntoView.)
  useEffect(() => {
    if (error) shown.current?.scrollIntoView?.({ block: 'center' });
  }, [error]);
  if (!error) return null;
  const text = problemText(error);
  return (
    <Alert ref={shown} color="red" icon={<IconAlertTriangle />} title={text.title} role="alert">
      <Text size="sm">{text.sentence}</Text>
      {text.fields.length ? (
        <List size="sm" mt="xs">
          {text.fields.map((f) => (
            <List.Item key={`${f.label}:${f.message}`}>
              {f.label ? `${f.label}: ` : ''}
              {f.message}
            </List.Item>
          ))}
        </List>
      ) : null}
      {text.requestId ? (
        <Text size="xs" c="dimmed" mt="xs">
          Request id: {text.requestId}
        </Text>
      ) : null}
    </Alert>
  );
}
