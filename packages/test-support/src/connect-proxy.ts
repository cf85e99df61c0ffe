import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface ConnectProxy {
  url: string;
  port: number;
  /** Every CONNECT request: the authority asked for and its Proxy-Authorization header. */
  connects: { authority: string; authorization: string | undefined }[];
  /** Answer every CONNECT with this status instead of tunnelling (e.g. 407, 403). */
  refuseWith(status: number | undefined): void;
  close(): Promise<void>;
}

// A tiny HTTP CONNECT proxy, as a stand-in for an operator's egress proxy: records what it is asked
// to reach and pipes the tunnel to it.
export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: ConnectProxy['connects'] = [];
  const sockets = new Set<net.Socket>();
  let refusal: number | undefined;
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const authority = req.url ?? '';
    connects.push({ authority, authorization: req.headers['proxy-authorization'] });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (refusal !== undefined) return void client.end(`HTTP/1.1 ${refusal} Refused\r\nContent-Length: 0\r\n\r\n`);
    const match = /^\[?([^\]]+)\]?:(\d+)$/.exec(authority);
    if (!match) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const upstream = net.connect({ host: match[1], port: Number(match[2]) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    refuseWith: (status) => {
      refusal = status;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
