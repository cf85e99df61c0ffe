import { Box, Text } from 'ink';
import type { Notice } from './tui-actions';
import type { Prompt } from './ui-state';
import { useTheme } from './tui-theme';
import type { StreamView } from './use-events';

const STREAM_TEXT: Record<StreamView, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  offline: 'offline',
};

export interface HeaderProps {
  baseUrl: string;
  organization: string;
  stream: StreamView;
  filter: string;
  count: number;
  total: number;
  /** false: `total` is the API's estimate, shown as "~N". */
  totalExact: boolean;
  width: number;
}

/** Where the UI is connected, and whether the live stream is: "live" or "reconnecting…". */
export function Header({ baseUrl, organization, stream, filter, count, total, totalExact, width }: HeaderProps) {
  const theme = useTheme();
  const tone = stream === 'live' ? 'green' : stream === 'offline' ? 'red' : 'yellow';
  return (
    <Box width={width}>
      <Text wrap="truncate-end">
        <Text bold>relay</Text>
        {` ${baseUrl}  org ${organization}  `}
        <Text {...theme.tone(tone)}>{`● ${STREAM_TEXT[stream]}`}</Text>
        {filter ? `  filter: ${filter}` : ''}
        {`  ${count}/${totalExact ? '' : '~'}${total}`}
      </Text>
    </Box>
  );
}

const HINTS: Record<string, string> = {
  list: '↑↓/jk move  ⏎ open  / filter  r retry  a ack  d delete  s stats  ? help  q quit',
  detail: '↑↓/jk scroll  r retry  a ack  d delete  Esc/q back',
  panel: 'Esc/q back',
};

/** The last line but one says what happened (or asks); the last one lists the keys of the current screen. */
export function Footer(props: { prompt: Prompt; notice: Notice | undefined; screen: string; width: number }) {
  const theme = useTheme();
  const { prompt, notice, screen, width } = props;
  let line = <Text> </Text>;
  if (prompt?.kind === 'filter')
    line = (
      <Text wrap="truncate-start">
        {`/ filter: ${prompt.text}`}
        {/* The cursor: a reversed cell, or an underscore where there are no styles. */}
        {theme.color ? <Text inverse> </Text> : '_'}
        {'  (Enter applies, Esc cancels)'}
      </Text>
    );
  else if (prompt?.kind === 'confirm')
    line = (
      <Text wrap="truncate-end" bold {...theme.tone('yellow')}>
        {`${prompt.question} (y/n)`}
      </Text>
    );
  else if (notice)
    line = (
      <Text wrap="truncate-end" {...theme.tone(notice.kind === 'error' ? 'red' : 'cyan')}>
        {notice.text}
      </Text>
    );
  return (
    <Box flexDirection="column" width={width}>
      {line}
      <Text wrap="truncate-end" {...theme.tone('gray')}>
        {HINTS[screen] ?? HINTS.panel}
      </Text>
    </Box>
  );
}
