import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * This api's app served on an ephemeral loopback port for the length of one MCP request: the tools call the REST
 * API through every middleware (credentials, authorization table, validation, audit) without knowing which port or
 * proxy the api is reached through. (An in-process request injector cannot work: Express 5 replaces the request
 * object's prototype.) Closed, with its connections, when the MCP request ends.
 */
export async function serveOnLoopback(app: Express): Promise<{ url: string; close(): void }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.close();
      server.closeAllConnections();
    },
  };
}
