import { Alert, List } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { ApiError } from '../app/api-client';

/** Shows a failed request as its problem document (title, detail, field errors) — never a blank page. */
export function ProblemAlert({ error }: { error: unknown }) {
  if (!error) return null;
  const problem =
    error instanceof ApiError
      ? error.problem
      : { title: 'Something went wrong', detail: error instanceof Error ? error.message : 'The request failed.' };
  return (
    <Alert color="red" icon={<IconAlertTriangle />} title={problem.title} role="alert">
      {problem.detail}
      {'errors' in problem && problem.errors?.length ? (
        <List size="sm" mt="xs">
          {problem.errors.map((e) => (
            <List.Item key={`${e.field}:${e.message}`}>
              {e.field}: {e.message}
            </List.Item>
          ))}
        </List>
      ) : null}
    </Alert>
  );
}
