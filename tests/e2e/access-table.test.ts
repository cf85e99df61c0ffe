import { checkAccess, DEFAULT_ORGANIZATION_ID, issueToken, SCOPES, type Principal } from '@relay/core';
import { createCredentialRepository, createUserRepository } from '@relay/db';
import { ACCESS_TABLE } from '../../apps/api/src/composition/catalog';
import { FAST_HASH_ENV, startPipeline, testPasswords, type Pipeline } from './harness';
import { listen, openStream } from './sse-client';

const UNKNOWN_ID = '00000000-0000-7000-8000-0000000000aa';

interface Caller {
  name: string;
  principal: Pick<Principal, 'kind' | 'role' | 'scopes'> | null;
  headers: () => Record<string, string>;
}

// Walks every row of the authorization table with every kind of caller, through every mechanism,
// and checks the guard's answer: 401 without credentials, 403 for a wrong role or a missing scope,
// anything else (200, 201, 204, 400, 404, 409) when allowed.
describe('the authorization table, row by row', () => {
  let pipeline: Pipeline;
  const callers: Caller[] = [];

  beforeAll(async () => {
    pipeline = await startPipeline({
      api: { ...FAST_HASH_ENV, SESSION_SECRET: 's', LOGIN_MAX_FAILURES_PER_USER: '1000' },
      worker: false,
    });
    const users = createUserRepository(pipeline.store.prisma);
    const credentials = createCredentialRepository(pipeline.store.prisma);
    callers.push({ name: 'anonymous', principal: null, headers: () => ({}) });
    for (const role of ['viewer', 'admin'] as const) {
      const user = await users.create(DEFAULT_ORGANIZATION_ID, {
        username: `walk-${role}`,
        email: `${role}@example.com`,
        role,
        passwordHash: await testPasswords.hash(`${role}-password-1`),
      });
      const basic = `Basic ${Buffer.from(`walk-${role}:${role}-password-1`).toString('base64')}`;
      callers.push({
        name: `${role} via basic`,
        principal: { kind: 'user', role, scopes: 'all' },
        headers: () => ({ authorization: basic }),
      });
      const token = issueToken();
      await credentials.createPersonalToken(DEFAULT_ORGANIZATION_ID, user.id, {
        name: 'walk',
        prefix: token.prefix,
        secretHash: token.secretHash,
        expiresAt: null,
      });
      callers.push({
        name: `${role} via personal token`,
        principal: { kind: 'user', role, scopes: 'all' },
        headers: () => ({ authorization: `Bearer ${token.token}` }),
      });
      const login = await pipeline.http
        .post('/api/auth/login')
        .send({ username: `walk-${role}`, password: `${role}-password-1` })
        .expect(200);
      const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? [])[0]!.split(';')[0]!;
      callers.push({
        name: `${role} via session`,
        principal: { kind: 'user', role, scopes: 'all' },
        headers: () => ({ cookie, 'sec-fetch-site': 'same-origin' }),
      });
    }
    for (const scope of SCOPES) {
      const key = issueToken();
      await credentials.createApiKey(DEFAULT_ORGANIZATION_ID, {
        name: scope,
        prefix: key.prefix,
        secretHash: key.secretHash,
        scopes: [scope],
        createdById: null,
        expiresAt: null,
      });
      callers.push({
        name: `API key with ${scope}`,
        principal: { kind: 'api_key', role: 'admin', scopes: [scope] },
        headers: () => ({ authorization: `Bearer ${key.token}` }),
      });
    }
  });
  let served: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    served = await listen(pipeline.api.app);
  });
  afterAll(async () => {
    await served.close();
    await pipeline.close();
  });
  // The live stream never ends: read its status, then hang up.
  const streamStatus = async (headers: Record<string, string>) => {
    const client = await openStream(`${served.url}/events/stream`, headers);
    client.close();
    return { status: client.status };
  };

  const rows = Object.entries(ACCESS_TABLE);

  // Routes anyone may call: probes, ingest, login/logout, the API description and what a login page
  // or an identity provider needs to know before it has credentials.
  const PUBLIC = [
    'GET /health',
    'GET /ready',
    // Guarded by METRICS_TOKEN when set, not by a relay credential (tests/e2e/metrics.test.ts).
    'GET /metrics',
    'POST /',
    'POST /:source',
    'POST /{*path}',
    'POST /api/auth/login',
    'POST /api/auth/logout',
    'GET /api/auth/me',
    'GET /config/endpoint',
    'GET /config/oauth',
    // The identity-provider login: its redirect and the identity provider's callback (tests/e2e/oidc-login.test.ts).
    'GET /api/auth/idp',
    'GET /api/auth/callback/idp',
    'GET /openapi.json',
    // The JSON Schema of the configuration file, for editors (tests/e2e/config-as-code.test.ts).
    'GET /api/schemas/relay-config.json',
    'GET /docs',
    'GET /docs/swagger-initializer.js',
    // The dashboard: the front door and the single-page app's files (it calls the API with the session).
    'GET /',
    'GET /app',
    'GET /app/{*path}',
    // The dashboard's icon, where browsers look for it (a redirect to /app/favicon.svg).
    'GET /favicon.ico',
    // Checks PLATFORM_ADMIN_TOKEN itself.
    'POST /api/platform/bootstrap/operator',
    // Checks the one-time set-password code itself (limited like the login).
    'POST /api/auth/password-reset',
  ];
  // Platform operators' routes: a session of an operator, nobody else (tests/e2e/platform.test.ts).
  const OPERATOR_ONLY = [
    'GET /api/platform/overview',
    'GET /api/platform/organizations',
    'POST /api/platform/organizations',
    'GET /api/platform/organizations/:id',
    'PATCH /api/platform/organizations/:id/subscription',
    'GET /api/platform/organizations/:id/export',
    'DELETE /api/platform/organizations/:id',
    'GET /api/platform/audit',
    'POST /api/platform/password',
    'GET /api/platform/operators',
    'POST /api/platform/operators',
    'DELETE /api/platform/operators/:id',
  ];

  it('has a row for every route the app registers, except the public ones', () => {
    type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
    const found: string[] = [];
    const walk = (stack: Layer[]) => {
      for (const layer of stack) {
        if (layer.route)
          for (const method of Object.keys(layer.route.methods))
            found.push(`${method.toUpperCase()} ${layer.route.path}`);
        else if (layer.handle?.stack) walk(layer.handle.stack);
      }
    };
    walk((pipeline.api.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const guarded = found.filter((route) => !PUBLIC.includes(route) && !OPERATOR_ONLY.includes(route));
    expect(found).toEqual(expect.arrayContaining(OPERATOR_ONLY));
    expect([...new Set(guarded)].sort()).toEqual(Object.keys(ACCESS_TABLE).sort());
  });

  it.each(rows)('%s', async (route, rule) => {
    const [method, template] = route.split(' ') as [string, string];
    const path = template.replace(/:\w+/g, UNKNOWN_ID);
    for (const caller of callers) {
      const req = () =>
        pipeline.http[method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](path).set(caller.headers());
      const res =
        route === 'GET /events/stream'
          ? await streamStatus(caller.headers())
          : method === 'GET' || method === 'DELETE'
            ? await req()
            : await req().send({});
      let expected: 'unauthenticated' | 'forbidden' | 'allowed';
      if (!caller.principal) expected = 'unauthenticated';
      else {
        const decision = checkAccess(
          {
            ...caller.principal,
            mechanism: 'token',
            orgId: DEFAULT_ORGANIZATION_ID,
            userId: null,
            username: null,
            email: null,
            credentialId: null,
          },
          rule,
        );
        // Personal tokens belong to users: an API key passes the guard but has none.
        // Nor a password to change.
        const ownTokens =
          (template.startsWith('/api/auth/tokens') || template === '/api/auth/password') &&
          caller.principal.kind === 'api_key';
        // The MCP endpoint takes bearer tokens only: a session or Basic is no credential there.
        const bearerOnly = template === '/mcp' && !/token|API key/.test(caller.name);
        expected = bearerOnly ? 'unauthenticated' : decision.ok && !ownTokens ? 'allowed' : 'forbidden';
      }
      const outcome = res.status === 401 ? 'unauthenticated' : res.status === 403 ? 'forbidden' : 'allowed';
      expect({ caller: caller.name, outcome }).toEqual({ caller: caller.name, outcome: expected });
      expect(res.status).toBeLessThan(500);
    }
  });
});
