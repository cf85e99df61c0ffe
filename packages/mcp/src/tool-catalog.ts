import { CONFIG_TOOLS } from './tools/config-tools';
import { DESTINATION_TOOLS } from './tools/destination-tools';
import { EVENT_ACTION_TOOLS } from './tools/event-action-tools';
import { EVENT_READ_TOOLS } from './tools/event-read-tools';
import { HOOK_TOOLS } from './tools/hook-tools';
import { ORGANIZATION_TOOLS } from './tools/organization-tools';
import { RULE_TOOLS } from './tools/rule-tools';
import { SEND_TOOLS } from './tools/send-tools';
import type { AnyRelayTool } from './tool-kit';

/** Every tool the relay's MCP server can offer, in the order clients list them. */
export const RELAY_TOOLS: readonly AnyRelayTool[] = [
  ...EVENT_READ_TOOLS,
  ...EVENT_ACTION_TOOLS,
  ...RULE_TOOLS,
  ...DESTINATION_TOOLS,
  ...HOOK_TOOLS,
  ...SEND_TOOLS,
  ...ORGANIZATION_TOOLS,
  ...CONFIG_TOOLS,
];
