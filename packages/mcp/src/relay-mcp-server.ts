import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { accessOf, dataOf, ProblemError, type RelayClient } from '@relay/client';
import type { ZodRawShape } from 'zod';
import { version } from '../package.json';
import { callerMay, refusalOf, type Caller } from './caller-access';
import { RELAY_TOOLS } from './tool-catalog';
import type { AnyRelayTool, ToolContext } from './tool-kit';
import { registerEventResources } from './event-resources';
import { loadMcpSdk, type McpSdk } from './mcp-sdk';
import { registerTriagePrompt } from './triage-prompt';

export interface RelayMcpServerOptions {
  /** The typed client with the caller's credential: every tool acts through the REST API, as that caller. */
  client: RelayClient;
  /** The tools to offer (default: all of them); tests narrow it. */
  tools?: readonly AnyRelayTool[];
}

/**
 * The version every transport reports to MCP clients (HTTP in the api, stdio in the CLI): this package's own,
 * so one server never answers with two versions.
 */
const MCP_SERVER_VERSION = version;

const INSTRUCTIONS =
  'Tools of a webhook relay: senders post webhooks to it, it stores each as an event and delivers it to a ' +
  "target with retries. Start with list_events (filters: status 'failed', needs_attention) and " +
  'list_event_attempts to see why a delivery failed; retry_event or bulk_retry_events once the cause is fixed. ' +
  'Results carry ids and links to the dashboard.';

/** A problem document as one line an assistant can act on: what went wrong, which fields, its stable code. */
function problemText(error: unknown): string {
  if (!(error instanceof ProblemError)) return error instanceof Error ? error.message : String(error);
  const fields = error.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return `${error.detail ?? error.title}${fields ? ` (${fields})` : ''} [${error.code}]`;
}

function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/**
 * An MCP server for one caller (an API key or a personal token): it offers the tools that caller's role and
 * scopes allow, and acts only through the REST API with the caller's credential, so the api's authorization
 * table and audit log apply to every call exactly as they do to curl.
 */
export async function createRelayMcpServer(options: RelayMcpServerOptions): Promise<McpServer> {
  const { client } = options;
  const me = await dataOf(client.GET('/api/auth/me'));
  const caller: Caller = { role: 'role' in me ? (me.role ?? null) : null, scopes: me.scopes as string[] };
  const endpoint = await dataOf(client.GET('/config/endpoint'));
  const base = endpoint.base_url.replace(/\/+$/, '');
  const ctx: ToolContext = { client, link: (path) => `${base}/app${path}` };

  const sdk = await loadMcpSdk();
  const server = new sdk.McpServer(
    { name: 'webhook-relay', version: MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  const refused = new Map<string, string>();
  for (const tool of options.tools ?? RELAY_TOOLS) {
    const access = accessOf(tool.operation);
    if (access !== 'public' && !callerMay(caller, access)) {
      refused.set(tool.name, refusalOf(tool.name, caller, access));
      continue;
    }
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input as ZodRawShape,
        outputSchema: tool.output as ZodRawShape,
        annotations: { title: tool.title, openWorldHint: false, ...tool.annotations },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          return toolResult(await tool.run(args, ctx));
        } catch (error) {
          return { isError: true, content: [{ type: 'text', text: problemText(error) }] };
        }
      },
    );
  }
  // The resources read what list_events and get_event read, so they ask what those operations ask.
  if (callerMay(caller, accessOf('GET /events')) && callerMay(caller, accessOf('GET /events/{id}'))) {
    registerEventResources(server, ctx, sdk);
  }
  registerTriagePrompt(server);
  refuseOutsideScopes(server, refused, sdk);
  return server;
}

type CallHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * A tool the caller may not use is not listed; a call to it anyway gets a clear refusal (what it needs, what the
 * credential has) instead of the SDK's "Tool … not found", and nothing runs. The SDK offers no hook for this, so
 * its registered `tools/call` handler is wrapped (a test pins the behaviour across SDK upgrades).
 */
function refuseOutsideScopes(server: McpServer, refused: ReadonlyMap<string, string>, sdk: McpSdk) {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, CallHandler> })._requestHandlers;
  const original = handlers.get('tools/call');
  if (!original) {
    // No tool at all for this caller: still a tools server, with an empty list and the same refusals.
    server.server.registerCapabilities({ tools: {} });
    server.server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: [] }));
  }
  server.server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
    const refusal = refused.get(request.params.name);
    if (refusal) return { isError: true, content: [{ type: 'text', text: refusal }] };
    if (!original) return { isError: true, content: [{ type: 'text', text: `No tool ${request.params.name}.` }] };
    return (await original(request, extra)) as CallToolResult;
  });
}
