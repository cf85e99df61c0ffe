import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RelayClient } from '@relay/client';
import { createRelayMcpServer } from '@relay/mcp';
import type { Readable, Writable } from 'node:stream';
import type { Streams } from '../output/output';

/**
 * The MCP server over stdin/stdout until the assistant closes stdin. stdout carries only JSON-RPC messages, so
 * nothing else may be written there while it runs.
 */
export async function runStdioServer(client: RelayClient, streams: Streams): Promise<void> {
  const server = await createRelayMcpServer({ client });
  const transport = new StdioServerTransport(streams.stdin as Readable, streams.stdout as Writable);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    streams.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
