import { Badge } from '@mantine/core';

// paused: the event waits for its unhealthy rule to be resumed.
const colors: Record<string, string> = {
  queued: 'blue',
  delivered: 'green',
  failed: 'red',
  paused: 'yellow',
  ignored: 'gray',
};

export function StatusBadge({ status, acknowledged }: { status: string; acknowledged?: boolean }) {
  return (
    <Badge color={colors[status] ?? 'gray'} variant={acknowledged ? 'outline' : 'light'}>
      {status}
      {acknowledged ? ' (ack)' : ''}
    </Badge>
  );
}
