import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A hand-made OpenID Connect provider on a loopback port whose ID tokens the test shapes: signed with a key it does
// not publish, expired, for another audience, or with a rotated key. (oidc-provider signs everything correctly.)
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

export function signingKey(kid: string = randomUUID()): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

const b64url = (value: object | Buffer) =>
  (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

export function signIdToken(key: SigningKey, claims: Record<string, unknown>): string {
  const input = `${b64url({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${b64url(claims)}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), key.privateKey))}`;
}

export interface FakeProvider {
  issuer: string;
  /** Keys the JWKS publishes. */
  published: SigningKey[];
  /** The key the token endpoint signs with. */
  signer: SigningKey;
  /** Claims over the defaults of the next ID tokens (`iss`, `aud`, `exp`, ... may be replaced). */
  claims: Record<string, unknown>;
  /** Where discovery points (defaults: this provider's own paths). */
  endpoints: { token?: string; userinfo?: string; jwks?: string };
  /** Requests per path, e.g. `GET /jwks`. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startFakeProvider(clientId: string, email: string): Promise<FakeProvider> {
  let nonce: string | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', provider.issuer);
    const key = `${req.method} ${url.pathname}`;
    provider.hits.set(key, (provider.hits.get(key) ?? 0) + 1);
    const json = (body: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (key === 'GET /.well-known/openid-configuration') {
      return json({
        issuer: provider.issuer,
        authorization_endpoint: `${provider.issuer}/authorize`,
        token_endpoint: provider.endpoints.token ?? `${provider.issuer}/token`,
        userinfo_endpoint: provider.endpoints.userinfo ?? `${provider.issuer}/userinfo`,
        jwks_uri: provider.endpoints.jwks ?? `${provider.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (key === 'GET /jwks') return json({ keys: provider.published.map((k) => k.jwk) });
    if (key === 'GET /authorize') {
      // Signs anybody in at once: back to the relay with a code, the nonce kept for the ID token.
      nonce = url.searchParams.get('nonce') ?? undefined;
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.search = new URLSearchParams({ code: randomUUID(), state: url.searchParams.get('state')! }).toString();
      return res.writeHead(302, { location: back.href }).end();
    }
    if (key === 'POST /token') {
      req.resume();
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: provider.issuer, aud: clientId, sub: 'fake-subject', iat: now, exp: now + 300, nonce };
      const idToken = signIdToken(provider.signer, { ...claims, email, email_verified: true, ...provider.claims });
      return json({ access_token: randomUUID(), token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    if (key === 'GET /userinfo') return json({ sub: 'fake-subject', email, email_verified: true });
    return res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const first = signingKey();
  const provider: FakeProvider = {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    published: [first],
    signer: first,
    claims: {},
    endpoints: {},
    hits: new Map(),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return provider;
}

/** A server on another loopback address that answers anything and records every request it gets. */
export async function startCanary(host = '127.0.0.2') {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
