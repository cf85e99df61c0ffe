import { ActionIcon, Badge, Code, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import type { Rule } from './rule-types';

const REASONS: Record<NonNullable<Rule['health']['reason']>, string> = {
  gone: 'target answered 410 Gone',
  failing: 'no delivery succeeding',
};

/**
 * A rule's state in the list: an unhealthy rule is never a green "active" (its events wait as paused until resumed),
 * so the red badge and its reason come first.
 */
export function RuleStateCell({ rule }: { rule: Rule }) {
  if (!rule.active) return <Badge color="gray">inactive</Badge>;
  if (rule.health.status === 'healthy') return <Badge color="green">active</Badge>;
  const reason = rule.health.reason ? REASONS[rule.health.reason] : 'unhealthy';
  return (
    <Stack gap={2}>
      <Badge color="red">unhealthy</Badge>
      <Text size="xs" c="dimmed">
        {reason}
        {rule.health.since ? `, since ${new Date(rule.health.since).toLocaleString()}` : ''}
      </Text>
    </Stack>
  );
}

/**
 * The URL to give the sender: GET /config/endpoint's `source_url_template` (`<public base>/{source}`, or the
 * organization's own host), null when no URL accepts the organization's webhooks.
 */
export function ingestUrlOf(template: string | null | undefined, source: string): string | null {
  return template ? template.replace('{source}', source) : null;
}

export function IngestUrlCell({ url }: { url: string | null }) {
  if (!url) return <Text c="dimmed">–</Text>;
  return (
    <Group gap={4} wrap="nowrap">
      <Code style={{ overflowWrap: 'anywhere' }}>{url}</Code>
      <CopyButton value={url}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy ingest URL'}>
            <ActionIcon variant="subtle" onClick={copy} aria-label={`Copy ${url}`}>
              {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
