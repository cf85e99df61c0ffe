import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Scope } from '@relay/core';
import { createRelayClient } from '@relay/client';
import { createRelayMcpServer } from '@relay/mcp';
import {
  apiKeyCredential,
  FAST_HASH_ENV,
  startPipeline,
  userCredential,
  type Env,
  type Pipeline,
} from '../e2e/harness';
import { listen } from '../e2e/sse-client';

export const ALL_SCOPES: Scope[] = ['events:read', 'webhooks:send', 'rules:read', 'rules:write', 'organization:manage'];

/** A relay (api + worker) served on a loopback port, and MCP clients connected to it as different callers. */
export interface McpRelay {
  pipeline: Pipeline;
  url: string;
  /** An API key with these scopes (an `Authorization` header value). */
  key(scopes: Scope[]): Promise<string>;
  /** A personal token of a new user with this role. */
  token(role: 'admin' | 'viewer'): Promise<string>;
  /**
   * An MCP client talking to `createRelayMcpServer` in this process over an in-memory transport; the server acts
   * through the REST API over HTTP with `authorization`. Closed by close().
   */
  connect(authorization: string): Promise<Client>;
  /** An MCP client over any transport (Streamable HTTP to /mcp, stdio to `relay mcp`). Closed by close(). */
  connectOver(transport: Transport): Promise<Client>;
  close(): Promise<void>;
}

export async function startMcpRelay(api: Env = {}): Promise<McpRelay> {
  const pipeline = await startPipeline({ api: { ...FAST_HASH_ENV, SESSION_SECRET: 'mcp-test', ...api } });
  const served = await listen(pipeline.api.app);
  const clients: Client[] = [];
  const connectOver = async (transport: Transport) => {
    const client = new Client({ name: 'relay-tests', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  return {
    pipeline,
    url: served.url,
    key: (scopes) => apiKeyCredential(pipeline, scopes),
    token: async (role) => (await userCredential(pipeline, role)).authorization,
    async connect(authorization) {
      const server = await createRelayMcpServer({
        client: createRelayClient({ baseUrl: served.url, headers: { authorization } }),
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return connectOver(clientSide);
    },
    connectOver,
    async close() {
      for (const client of clients) await client.close().catch(() => {});
      await served.close();
      await pipeline.close();
    },
  };
}
