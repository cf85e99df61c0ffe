import { Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import type { OrganizationDetail } from './platform-types';

const count = (n: number) => n.toLocaleString('en-US');
const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

// Past 80 % an operator should look (a plan change is due); at the limit ingest is refused with 429.
const colorOf = (percent: number) => (percent >= 100 ? 'red' : percent >= 80 ? 'yellow' : 'blue');

/** Events accepted this billing period against the subscription's monthly quota, as a bar when there is one. */
export function UsageCard({ usage }: { usage: OrganizationDetail['usage'] }) {
  const limit = usage.monthly_event_limit;
  const percent = limit ? (usage.events_this_period / limit) * 100 : limit === 0 ? 100 : 0;
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={3}>Usage this period</Title>
        <Text data-testid="usage-summary">
          {limit === null
            ? `${count(usage.events_this_period)} events (no quota)`
            : `${count(usage.events_this_period)} of ${count(limit)} events (${Math.floor(percent)}%)`}
        </Text>
        {limit !== null ? (
          <Progress
            value={Math.min(percent, 100)}
            color={colorOf(percent)}
            size="lg"
            aria-label="Events this period against the monthly quota"
          />
        ) : null}
        {limit !== null && percent >= 100 ? (
          <Text size="sm" c="red">
            Quota reached: new webhooks are refused (429) until the period ends or the limit is raised.
          </Text>
        ) : null}
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Period {day(usage.period_start)} – {day(usage.period_end)} (UTC)
          </Text>
        </Group>
      </Stack>
    </Card>
  );
}
