import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_ORGANIZATION_ID, parseAllowlist, type TargetPolicy } from '@relay/core';
import { createGuardedFetch } from './guarded-fetch';
import type { IdentityProviderConfig } from './identity-provider';
import { classify } from './idp-error-classify';
import { createOidcConfigurations } from './oidc-configurations';

// Discovery against a real local server: how long a result is used, and which providers pass the target policy.
let server: http.Server;
let issuer: string;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const body = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});
beforeEach(() => (hits.length = 0));

const provider = (overrides: Partial<IdentityProviderConfig> = {}): IdentityProviderConfig => ({
  organizationId: DEFAULT_ORGANIZATION_ID,
  issuer,
  clientId: 'relay',
  clientSecret: undefined,
  redirectUri: undefined,
  scopes: 'openid',
  provisioning: 'off',
  allowedDomains: [],
  roleMapping: null,
  buttonLabel: 'Sign in',
  trusted: false,
  ...overrides,
});
const open: TargetPolicy = { allowPrivate: true, allowlist: [] };
const strict: TargetPolicy = { allowPrivate: false, allowlist: [] };

describe('the discovery cache', () => {
  it('uses a discovery result for maxAgeMs, then discovers again', async () => {
    let now = 1_000_000;
    const configurations = createOidcConfigurations({
      timeoutSeconds: 5,
      targetPolicy: open,
      maxAgeMs: 60_000,
      now: () => now,
    });
    const first = await configurations.of(provider());
    now += 59_999;
    expect(await configurations.of(provider())).toBe(first);
    expect(hits).toHaveLength(1);
    now += 1;
    const second = await configurations.of(provider());
    expect(second).not.toBe(first);
    expect(hits).toHaveLength(2);
    // Another client of the same issuer has a discovery of its own.
    await configurations.of(provider({ clientId: 'other' }));
    expect(hits).toHaveLength(3);
  });

  it('forgets a failed discovery, so the next login tries again', async () => {
    const configurations = createOidcConfigurations({ timeoutSeconds: 5, targetPolicy: open });
    const gone = provider({ issuer: 'http://127.0.0.1:1' });
    await expect(configurations.of(gone)).rejects.toBeDefined();
    await expect(configurations.of(gone)).rejects.toBeDefined();
    const attempts = jest.fn(createGuardedFetch(open));
    const counted = createOidcConfigurations({ timeoutSeconds: 5, targetPolicy: open, guardedFetch: attempts });
    await expect(counted.of(gone)).rejects.toBeDefined();
    await expect(counted.of(gone)).rejects.toBeDefined();
    expect(attempts).toHaveBeenCalledTimes(2);
  });
});

describe('the target policy on identity-provider fetches', () => {
  it("refuses an organization's loopback provider without connecting, as unreachable", async () => {
    const configurations = createOidcConfigurations({ timeoutSeconds: 5, targetPolicy: strict });
    const err: unknown = await configurations.of(provider()).catch((e: unknown) => e);
    expect(classify(err).reason).toBe('provider_unreachable');
    expect(hits).toEqual([]);
  });

  it('admits it through TARGET_ALLOWLIST, and trusts the operator’s OIDC_ISSUER_URL as configured', async () => {
    const allowlisted = { allowPrivate: false, allowlist: parseAllowlist('127.0.0.1') };
    await createOidcConfigurations({ timeoutSeconds: 5, targetPolicy: allowlisted }).of(provider());
    await createOidcConfigurations({ timeoutSeconds: 5, targetPolicy: strict }).of(provider({ trusted: true }));
    expect(hits).toHaveLength(2);
  });

  it('checks the addresses a name resolves to at connect time', async () => {
    // A public-looking name whose DNS answer is this machine (rebinding).
    const rebinding = createGuardedFetch(strict, (_host, _options, callback) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }]),
    );
    const err = await rebinding(`${issuer.replace('127.0.0.1', 'id.example.com')}/x`, {}).catch((e: unknown) => e);
    expect(classify(err).reason).toBe('provider_unreachable');
    expect(hits).toEqual([]);
  });
});
