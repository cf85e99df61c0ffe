import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRelay, runBinary } from '../cli/cli-harness';
import { seedUser } from '../e2e/harness';
import { ALL_SCOPES, startMcpRelay, type McpRelay } from './mcp-harness';
import { keyIdOf } from './tool-results';

// One version over both transports: the MCP package's own (packages/mcp/package.json).
const MCP_VERSION = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../packages/mcp/package.json'), 'utf8')) as { version: string }
).version;

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

describe('MCP over Streamable HTTP at /mcp', () => {
  let relay: McpRelay;
  beforeAll(async () => {
    relay = await startMcpRelay();
  });
  afterAll(() => relay.close());

  const http = (authorization: string) =>
    new StreamableHTTPClientTransport(new URL(`${relay.url}/mcp`), {
      requestInit: { headers: { authorization } },
    });
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(`${relay.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('serves the SDK client: tools by scope, calls through the REST API', async () => {
    await relay.pipeline.http.post('/stripe').set('content-type', 'application/json').send({ id: 'evt' }).expect(202);
    const client = await relay.connectOver(http(await relay.key(ALL_SCOPES)));
    expect(client.getServerVersion()).toEqual({ name: 'webhook-relay', version: MCP_VERSION });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('list_sources');
    const result = await client.callTool({ name: 'list_sources', arguments: {} });
    expect(result.structuredContent).toMatchObject({ sources: [{ source: 'stripe', count: 1 }] });
  });

  it('refuses no token, a revoked key and a session cookie with 401 problem documents', async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toContain('application/problem+json');
    expect(((await none.json()) as { code: string }).code).toBe('unauthenticated');

    const key = await relay.key(['events:read']);
    expect((await post({ authorization: key })).status).toBe(200);
    const id = (
      await relay.pipeline.http.get('/api/api-keys').set('authorization', await relay.key(ALL_SCOPES))
    ).body.api_keys.find((k: { scopes: string[] }) => k.scopes.length === 1 && k.scopes[0] === 'events:read').id;
    await relay.pipeline.http
      .delete(`/api/api-keys/${id}`)
      .set('authorization', await relay.key(ALL_SCOPES))
      .expect(204);
    const revoked = await post({ authorization: key });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { code: string }).code).toBe('unauthenticated');

    // A dashboard session is not a way in: assistants hold a key given to them on purpose.
    await seedUser(relay.pipeline, { username: 'session-user', role: 'admin', password: 'a-long-password-1' });
    const login = await fetch(`${relay.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'session-user', password: 'a-long-password-1' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const bySession = await post({ cookie, origin: relay.url });
    expect(bySession.status).toBe(401);
    expect(((await bySession.json()) as { detail: string }).detail).toContain('Authorization: Bearer');
  });

  it("acts as the key: a tool's write is audited with the key's creator and id", async () => {
    const key = await relay.key(ALL_SCOPES);
    const id = (
      await relay.pipeline.http.post('/audited').set('content-type', 'application/json').send({ a: 1 }).expect(202)
    ).body.id as string;
    const client = await relay.connectOver(http(key));
    const result = await client.callTool({ name: 'delete_event', arguments: { id } });
    expect(result.isError).toBeFalsy();
    expect(await relay.pipeline.eventById(id)).toBeNull();
    const entry = await relay.pipeline.store.prisma.auditEntry.findFirst({
      where: { action: 'event.deleted', resourceId: id },
    });
    expect(entry?.metadata).toMatchObject({ api_key_id: await keyIdOf(relay, key) });
  });

  it('answers GET and DELETE with 405 (stateless: no stream, no session)', async () => {
    const key = await relay.key(['events:read']);
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${relay.url}/mcp`, { method, headers: { authorization: key } });
      expect(answer.status).toBe(405);
      expect(((await answer.json()) as { code: string }).code).toBe('method_not_allowed');
    }
  });

  it('is a reserved path: a webhook posted to /mcp is not ingested as source "mcp"', async () => {
    const answer = await relay.pipeline.http.post('/mcp/hooks').set('content-type', 'application/json').send({});
    expect(answer.status).not.toBe(202);
  });
});

describe('MCP over stdio: relay mcp', () => {
  let relay: McpRelay;
  let build: { bin: string; dir: string };
  let home: string;
  beforeAll(async () => {
    build = buildRelay();
    home = mkdtempSync(path.join(tmpdir(), 'relay-mcp-home-'));
    relay = await startMcpRelay();
  });
  afterAll(async () => {
    await relay.close();
    for (const dir of [home, build.dir]) rmSync(dir, { recursive: true, force: true });
  });

  const stdio = (env: Record<string, string>) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [build.bin, 'mcp'],
      env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    });

  it('stops with exit 1 and a message on stderr (stdout untouched) without a token', async () => {
    const run = await runBinary(build.bin, ['mcp'], home, { env: { RELAY_URL: relay.url } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: not logged in to http:\/\/127\.0\.0\.1:\d+/);
  });

  it('serves the tools of RELAY_TOKEN through RELAY_URL, and only those', async () => {
    await relay.pipeline.http.post('/github').set('content-type', 'application/json').send({ a: 1 }).expect(202);
    const reader = await relay.connectOver(
      stdio({ RELAY_URL: relay.url, RELAY_TOKEN: (await relay.key(['events:read'])).slice('Bearer '.length) }),
    );
    expect(reader.getServerVersion()).toEqual({ name: 'webhook-relay', version: MCP_VERSION });
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_sources');
    const result = await reader.callTool({ name: 'list_sources', arguments: {} });
    expect(result.structuredContent).toMatchObject({ sources: [{ source: 'github', count: 1 }] });

    const rulesOnly = await relay.connectOver(
      stdio({ RELAY_URL: relay.url, RELAY_TOKEN: (await relay.key(['rules:read'])).slice('Bearer '.length) }),
    );
    expect((await rulesOnly.listTools()).tools.map((t) => t.name)).not.toContain('list_sources');
  });
});
