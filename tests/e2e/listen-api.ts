import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pipeline } from './harness';

export interface ListeningApi {
  /** The api's own HTTP server, with the limits and time-outs its config set. */
  server: Server;
  port: number;
  /** Ends every connection, then closes the server. */
  close(): Promise<void>;
}

/**
 * The pipeline's api on a free loopback port, for tests that need real sockets (a body sent in parts, a slow
 * client), which supertest does not give.
 */
export async function listenApi(pipeline: Pipeline): Promise<ListeningApi> {
  const server = pipeline.api.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
