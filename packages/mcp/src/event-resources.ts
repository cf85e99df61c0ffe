import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { dataOf } from '@relay/client';
import type { ToolContext } from './tool-kit';
import type { McpSdk } from './mcp-sdk';
import { fetchEventDetail } from './tools/event-views';

/** How many events resources/list names: the newest ones; older events are read by id. */
export const LISTED_EVENTS = 20;
const MIME = 'application/json';
const uriOf = (id: string) => `relay://events/${id}`;

/**
 * Each event as a resource `relay://events/{id}`: its summary, headers and a payload preview (the same small
 * detail get_event returns), so a client can attach an event to a conversation. Registered only for callers that
 * may read events.
 */
export function registerEventResources(server: McpServer, ctx: ToolContext, sdk: McpSdk): void {
  const template = new sdk.ResourceTemplate('relay://events/{id}', {
    list: async () => {
      const query = { page: 1, per_page: LISTED_EVENTS };
      const { events } = await dataOf(ctx.client.GET('/events', { params: { query } }));
      return {
        resources: events.map((e) => ({
          uri: uriOf(e.id),
          name: `${e.source} event ${e.id}`,
          description: `${e.status}, received ${e.created_at}${e.failure_reason ? `: ${e.failure_reason}` : ''}`,
          mimeType: MIME,
        })),
      };
    },
  });
  server.registerResource(
    'event',
    template,
    {
      title: 'Relay event',
      description: 'One stored webhook: status, attempts, failure reason, headers and the start of its payload.',
      mimeType: MIME,
    },
    async (uri, { id }) => {
      const detail = await fetchEventDetail(ctx, String(id));
      return { contents: [{ uri: uri.href, mimeType: MIME, text: JSON.stringify(detail, null, 2) }] };
    },
  );
}
