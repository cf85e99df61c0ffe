import { Badge } from '@mantine/core';

const colors: Record<string, string> = { queued: 'blue', delivered: 'green', failed: 'red' };

export function StatusBadge({ status, acknowledged }: { status: string; acknowledged?: boolean }) {
  return (
    <Badge color={colors[status] ?? 'gray'} variant={acknowledged ? 'outline' : 'light'}>
      {status}
      {acknowledged ? ' (ack)' : ''}
    </Badge>
  );
}
