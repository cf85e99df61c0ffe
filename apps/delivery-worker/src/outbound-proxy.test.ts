import { execFileSync } from 'node:child_process';
import type dns from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { startConnectProxy, startTargetServer, type ConnectProxy, type TargetServer } from '@relay/test-support';
import { createGuardedLookup, type TargetPolicy } from '@relay/core';
import { createTunnelAgents, parseProxyUrl, type OutboundProxy } from './outbound-proxy';
import { createSender } from './sender';

const strict: TargetPolicy = { allowPrivate: false, allowlist: [] };
const open: TargetPolicy = { allowPrivate: true, allowlist: [] };

/** A resolver answering every name with these addresses, as a DNS server would. */
const resolvingTo = (...addresses: string[]) =>
  ((_host: string, _opts: unknown, cb: (err: null, a: dns.LookupAddress[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )) as never;

let proxy: ConnectProxy;
let target: TargetServer;
let proxySettings: OutboundProxy;
beforeAll(async () => {
  [proxy, target] = await Promise.all([startConnectProxy(), startTargetServer()]);
  proxySettings = parseProxyUrl(proxy.url)!;
});
afterAll(async () => {
  await Promise.all([proxy.close(), target.close()]);
});
beforeEach(() => {
  proxy.connects.length = 0;
  proxy.refuseWith(undefined);
  target.requests.length = 0;
});

function get(agent: http.Agent, url: string, options: https.RequestOptions = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = (url.startsWith('https:') ? https : http).get(url, { agent, ...options }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    request.on('error', reject);
  });
}

describe('OUTBOUND_PROXY_URL', () => {
  it('takes http://host:port with optional credentials, and nothing else', () => {
    expect(parseProxyUrl('http://proxy.internal:3128')).toEqual({
      host: 'proxy.internal',
      port: 3128,
      authorization: undefined,
    });
    expect(parseProxyUrl('http://us%40er:p%3Ass@10.0.0.1:8080')).toEqual({
      host: '10.0.0.1',
      port: 8080,
      authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    });
    for (const bad of ['https://proxy:3128', 'http://proxy', 'http://proxy:3128/path', 'socks5://p:1', 'proxy:3128'])
      expect(parseProxyUrl(bad)).toBeNull();
  });
});

describe('a delivery through the proxy', () => {
  it('asks the proxy for the checked IP address, keeps the Host header and sends Proxy-Authorization', async () => {
    const sender = createSender({
      timeoutMs: 2_000,
      policy: open,
      proxy: { ...proxySettings, authorization: 'Basic dTpw' },
    });
    try {
      const result = await sender.send({
        url: `http://localhost:${target.port}/through`,
        body: Buffer.from('{}'),
        headers: { 'content-type': 'application/json' },
      });
      expect(result.outcome).toEqual({ kind: 'response', status: 200, retryAfter: undefined });
    } finally {
      sender.close();
    }
    // The name was resolved by the worker: the proxy was given an address, never `localhost`.
    expect(proxy.connects).toEqual([{ authority: `127.0.0.1:${target.port}`, authorization: 'Basic dTpw' }]);
    expect(target.requests[0]).toMatchObject({ url: '/through', headers: { host: `localhost:${target.port}` } });
  });

  it('refuses a name that resolves to a private address before the proxy hears of it', async () => {
    const agents = createTunnelAgents(
      { proxy: proxySettings, lookup: createGuardedLookup(strict, resolvingTo('10.1.2.3')), timeoutMs: 2_000 },
      {},
    );
    await expect(get(agents.http, 'http://internal.example.com/x')).rejects.toMatchObject({
      code: 'ERR_TARGET_BLOCKED',
    });
    expect(proxy.connects).toEqual([]);
  });

  it('records a blocked outcome, the same as without a proxy', async () => {
    const sender = createSender({ timeoutMs: 2_000, policy: strict, proxy: proxySettings });
    try {
      const result = await sender.send({
        url: `http://localhost:${target.port}/x`,
        body: Buffer.from('{}'),
        headers: {},
      });
      expect(result.outcome).toMatchObject({
        kind: 'blocked',
        message: expect.stringMatching(/localhost resolves to/),
      });
    } finally {
      sender.close();
    }
    expect(proxy.connects).toEqual([]);
    expect(target.requests).toEqual([]);
  });

  it('counts a proxy that refuses the tunnel as a network error (retried)', async () => {
    proxy.refuseWith(403);
    const sender = createSender({ timeoutMs: 2_000, policy: open, proxy: proxySettings });
    try {
      const result = await sender.send({
        url: `http://127.0.0.1:${target.port}/x`,
        body: Buffer.from('{}'),
        headers: {},
      });
      expect(result.outcome).toMatchObject({ kind: 'network', code: 'ERR_PROXY_CONNECT' });
    } finally {
      sender.close();
    }
    expect(target.requests).toEqual([]);
  });
});

describe('an HTTPS target through the proxy', () => {
  let dir: string;
  let server: https.Server;
  let port: number;
  let cert: Buffer;
  let seenServername: string | undefined;

  beforeAll(async () => {
    // A self-signed certificate for a name that only the test's resolver knows.
    dir = mkdtempSync(join(tmpdir(), 'relay-proxy-tls-'));
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=hooks.example.com'],
        ...['-addext', 'subjectAltName=DNS:hooks.example.com'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'));
    server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      seenServername = (req.socket as TLSSocket).servername || undefined;
      res.end(`host=${req.headers.host}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('tunnels to the checked address and verifies the certificate against the name (SNI)', async () => {
    const agents = createTunnelAgents(
      { proxy: proxySettings, lookup: createGuardedLookup(open, resolvingTo('127.0.0.1')), timeoutMs: 2_000 },
      { ca: cert },
    );
    const res = await get(agents.https, `https://hooks.example.com:${port}/secure`);
    expect(res).toEqual({ status: 200, body: `host=hooks.example.com:${port}` });
    expect(seenServername).toBe('hooks.example.com');
    expect(proxy.connects.map((c) => c.authority)).toEqual([`127.0.0.1:${port}`]);
    agents.https.destroy();
  });

  it('refuses a certificate that does not name the target', async () => {
    const agents = createTunnelAgents(
      { proxy: proxySettings, lookup: createGuardedLookup(open, resolvingTo('127.0.0.1')), timeoutMs: 2_000 },
      { ca: cert },
    );
    await expect(get(agents.https, `https://other.example.com:${port}/`)).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    agents.https.destroy();
  });
});
