import { createRelayClient } from '@relay/client';
import type { Express, Request, Response } from 'express';
import { serveOnLoopback } from './loopback-server';

/**
 * The MCP endpoint (Streamable HTTP, stateless): each POST gets a server for its caller, whose tools call this
 * api's REST operations (on a loopback port of this process) with the caller's own bearer token — the same
 * authorization table and the same audit entries as any API call, so an assistant can never do more than its key.
 */
export function createMcpService() {
  return {
    async handle(req: Request, res: Response): Promise<void> {
      const loopback = await serveOnLoopback(req.app as Express);
      res.on('close', () => loopback.close());
      const client = createRelayClient({
        baseUrl: loopback.url,
        headers: { authorization: req.get('authorization') ?? '' },
      });
      // Loaded at the first MCP request, not at the api's start (packages/mcp/src/mcp-sdk.ts says why).
      const [{ createRelayMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
        import('@relay/mcp'),
        import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      ]);
      const server = await createRelayMcpServer({ client });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  };
}
