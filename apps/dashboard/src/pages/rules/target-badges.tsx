import { Badge, Group, Text, Tooltip } from '@mantine/core';
import { pacingSummary, type StoredTransformPacing } from './transform-pacing-draft';

/**
 * A rule's or a destination's transform and pacing at a glance: a "transform" badge, and a "paced" one naming the
 * limits ("5 / second (burst 10), 2 at once"); `none` when neither is set (nothing by default).
 */
export function TargetBadges({ target, none }: { target: StoredTransformPacing; none?: string }) {
  const pacing = pacingSummary(target);
  if (!target.has_transform && !pacing)
    return none ? (
      <Text size="sm" c="dimmed">
        {none}
      </Text>
    ) : null;
  return (
    <Group gap={4} wrap="wrap">
      {target.has_transform ? (
        <Tooltip label={target.forward_path_query ? 'Forwards its returned path and query' : 'Reshapes each webhook'}>
          <Badge variant="light" color="violet">
            transform
          </Badge>
        </Tooltip>
      ) : null}
      {pacing ? (
        <Badge variant="light" color="orange" tt="none">
          paced: {pacing}
        </Badge>
      ) : null}
    </Group>
  );
}
