import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';

/** OUTBOUND_PROXY_URL, parsed: where CONNECT tunnels are opened, and its credentials if any. */
export interface OutboundProxy {
  host: string;
  port: number;
  /** The `Proxy-Authorization` value (Basic) when the URL carries user:pass. */
  authorization: string | undefined;
}

/** `http://[user:pass@]host:port` only: anything else (https, a path, a query) is a mistake worth stopping for. */
export function parseProxyUrl(raw: string): OutboundProxy | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || url.hostname === '' || url.port === '') return null;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return null;
  const user = decodeURIComponent(url.username);
  const authorization =
    user === '' && url.password === ''
      ? undefined
      : `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), authorization };
}

export class ProxyConnectError extends Error {
  readonly code = 'ERR_PROXY_CONNECT';
  constructor(message: string) {
    super(message);
    this.name = 'ProxyConnectError';
  }
}

export interface TunnelOptions {
  proxy: OutboundProxy;
  /** The guarded lookup: the target policy decides on the address before the proxy hears of it. */
  lookup: LookupFunction;
  /** Bounds the proxy's connect and answer; the request's own timeout covers the rest. */
  timeoutMs: number;
}

/** A CONNECT answer's head is a status line and a few headers; more than this is not a proxy talking. */
const MAX_CONNECT_HEAD = 16 * 1024;

/**
 * Opens a tunnel to `host:port` through the proxy. The name is resolved here, with the guarded lookup,
 * and the proxy is asked for the checked address (`CONNECT 203.0.113.7:443`), never the name: a proxy
 * that resolved the name again could be steered to a private address (DNS rebinding). The proxy's own
 * address is the operator's and is not subject to the target policy.
 */
export function openTunnel(
  options: TunnelOptions,
  host: string,
  port: number,
  done: (err: Error | null, socket?: net.Socket) => void,
): void {
  const name = host.replace(/^\[|\]$/g, '');
  options.lookup(name, {}, (lookupErr, address, family) => {
    if (lookupErr) return done(lookupErr);
    const ip = address as string;
    const authority = family === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
    const socket = net.connect({ host: options.proxy.host, port: options.proxy.port });
    let head = Buffer.alloc(0);
    const fail = (err: Error) => {
      socket.removeListener('data', onData);
      socket.destroy();
      done(err);
    };
    const onError = (err: Error) => fail(err);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_CONNECT_HEAD) fail(new ProxyConnectError('the proxy sent no CONNECT answer'));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1];
      if (status === undefined || !status.startsWith('2')) {
        return fail(new ProxyConnectError(`the proxy refused CONNECT ${authority} (${status ?? 'no status'})`));
      }
      socket.removeListener('data', onData);
      socket.removeListener('error', onError);
      socket.setTimeout(0);
      // Bytes after the answer's head belong to the tunnel (a server that speaks first).
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      done(null, socket);
    };
    socket.setTimeout(options.timeoutMs, () =>
      fail(new ProxyConnectError(`the proxy did not answer in ${options.timeoutMs} ms`)),
    );
    socket.on('error', onError);
    socket.on('data', onData);
    socket.once('connect', () => {
      const auth = options.proxy.authorization ? `Proxy-Authorization: ${options.proxy.authorization}\r\n` : '';
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
    });
  });
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;

// The agents hand the request a socket asynchronously (the callback form of createConnection): the
// request keeps its Host header and, over TLS, its servername (SNI and certificate check), both
// taken from the URL's name while the bytes go to the checked address through the tunnel.

class HttpTunnelAgent extends http.Agent {
  constructor(
    private readonly tunnel: TunnelOptions,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
    openTunnel(this.tunnel, options.host ?? 'localhost', Number(options.port ?? 80), (err, socket) =>
      callback?.(err, socket as Duplex),
    );
    return undefined;
  }
}

class HttpsTunnelAgent extends https.Agent {
  constructor(
    private readonly tunnel: TunnelOptions,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
    openTunnel(this.tunnel, options.host ?? 'localhost', Number(options.port ?? 443), (err, socket) => {
      if (err || !socket) return callback?.(err ?? new ProxyConnectError('no tunnel'), socket as Duplex);
      // The agent's options carry servername (the URL's name, never an IP), ca, rejectUnauthorized.
      callback?.(null, tls.connect({ ...(options as tls.ConnectionOptions), socket }));
    });
    return undefined;
  }
}

/** Keep-alive agents that send every request through CONNECT tunnels of the outbound proxy. */
export function createTunnelAgents(
  tunnel: TunnelOptions,
  options: https.AgentOptions,
): { http: http.Agent; https: https.Agent } {
  return { http: new HttpTunnelAgent(tunnel, options), https: new HttpsTunnelAgent(tunnel, options) };
}
