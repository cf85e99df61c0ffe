import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startDnsServer, type DnsServer } from '@relay/test-support';
import { startMcpRelay, type McpRelay } from './mcp-harness';
import { keyIdOf, structured, textOf } from './tool-results';

const CANONICAL = 'ingest.relay.test';

describe('MCP audit and domain tools', () => {
  let dns: DnsServer;
  let relay: McpRelay;
  let manager: string;
  let client: Client;
  beforeAll(async () => {
    dns = await startDnsServer();
    relay = await startMcpRelay({
      INGEST_CANONICAL_HOST: CANONICAL,
      DNS_SERVERS: dns.address,
      INGEST_HOST_CACHE_MS: '0',
    });
    manager = await relay.key(['organization:manage', 'events:read']);
    client = await relay.connect(manager);
  });
  afterAll(async () => {
    await relay.close();
    await dns.close();
  });

  const addDomain = async (domain: string) =>
    (await relay.pipeline.http.post('/api/domains').set('authorization', manager).send({ domain }).expect(201))
      .body as { id: string; domain: string; verification_token: string };
  type Verified = {
    verified: boolean;
    domain: { id: string; status: string; link: string };
    checks: { record: string; ok: boolean; outcome: string }[];
    summary: string;
  };

  it('verify_domain says per record what is wrong, then activates the domain once DNS is right', async () => {
    const domain = await addDomain('shop.example.net');
    const txtName = `_relay-verification.${domain.domain}`;
    dns.set(domain.domain, { cname: 'elsewhere.example.org' });

    const failed = structured<Verified>(await client.callTool({ name: 'verify_domain', arguments: { id: domain.id } }));
    expect(failed).toMatchObject({ verified: false, domain: { id: domain.id, status: 'pending' } });
    expect(failed.checks).toEqual([
      {
        record: 'CNAME',
        ok: false,
        outcome: `CNAME shop.example.net: wrong; it is elsewhere.example.org, expected ${CANONICAL}.`,
      },
      {
        record: 'TXT',
        ok: false,
        outcome: `TXT ${txtName}: missing; add it with the value ${domain.verification_token}.`,
      },
    ]);
    expect(failed.summary).toMatch(/^shop\.example\.net stays pending: /);
    const row = () => relay.pipeline.store.prisma.customDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect((await row()).status).toBe('pending');

    dns.set(domain.domain, { cname: CANONICAL });
    dns.set(txtName, { txt: [domain.verification_token] });
    const ok = structured<Verified>(await client.callTool({ name: 'verify_domain', arguments: { id: domain.id } }));
    expect(ok).toMatchObject({
      verified: true,
      domain: { status: 'active', link: expect.stringMatching(/\/app\/domains$/) },
      summary: 'shop.example.net is active: it receives webhooks now.',
    });
    expect(ok.checks.every((c) => c.ok)).toBe(true);
    expect((await row()).status).toBe('active');
    const entry = await relay.pipeline.store.prisma.auditEntry.findFirstOrThrow({
      where: { action: 'domain.verified', resourceId: domain.id },
    });
    expect(entry.metadata).toMatchObject({ api_key_id: await keyIdOf(relay, manager) });

    // The active domain is now one of the organization's ingest URLs.
    const endpoint = structured<{ ingest_urls: string[] }>(
      await client.callTool({ name: 'get_ingest_endpoint', arguments: {} }),
    );
    expect(endpoint.ingest_urls).toContain('http://shop.example.net/');
  });

  it('list_domains shows each domain with the records it needs and its last check', async () => {
    const domain = await addDomain('hooks.example.org');
    await client.callTool({ name: 'verify_domain', arguments: { id: domain.id } });
    const { domains } = structured<{ domains: Record<string, unknown>[] }>(
      await client.callTool({ name: 'list_domains', arguments: {} }),
    );
    expect(domains.find((d) => d.id === domain.id)).toEqual({
      id: domain.id,
      domain: 'hooks.example.org',
      status: 'pending',
      records: [
        { type: 'CNAME', name: 'hooks.example.org', value: CANONICAL },
        { type: 'TXT', name: '_relay-verification.hooks.example.org', value: domain.verification_token },
      ],
      verified_at: null,
      last_checked_at: expect.any(String),
      last_check_error: expect.stringContaining('missing'),
      link: expect.stringMatching(/\/app\/domains$/),
    });
  });

  it('list_audit_entries pages the log newest first, naming the key and summarising metadata', async () => {
    const domain = await addDomain('audit.example.com');
    await client.callTool({ name: 'verify_domain', arguments: { id: domain.id } });
    const page = structured<{
      entries: Record<string, unknown>[];
      total: number;
      page: number;
      per_page: number;
      pages: number;
    }>(await client.callTool({ name: 'list_audit_entries', arguments: { per_page: 2 } }));
    const total = await relay.pipeline.store.prisma.auditEntry.count();
    expect(page).toMatchObject({ total, page: 1, per_page: 2, pages: Math.ceil(total / 2) });
    expect(page.entries).toHaveLength(2);
    const keyId = await keyIdOf(relay, manager);
    expect(page.entries[0]).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      actor_email: expect.any(String),
      api_key_id: keyId,
      action: 'domain.verification_failed',
      resource_type: 'domain',
      resource_id: domain.id,
      // Postgres orders jsonb keys by its own rule: the test does not depend on it.
      details: expect.stringMatching(/^(?=.*domain="audit\.example\.com")(?=.*cname="missing")(?=.*txt="missing")/),
      link: expect.stringMatching(/\/app\/domains$/),
    });
    expect(page.entries[1]).toMatchObject({ action: 'domain.created', resource_id: domain.id, api_key_id: keyId });

    const second = structured<{ entries: { id: string }[]; page: number }>(
      await client.callTool({ name: 'list_audit_entries', arguments: { page: 2, per_page: 2 } }),
    );
    expect(second.page).toBe(2);
    expect(second.entries.map((e) => e.id)).not.toContain(page.entries[0]!.id);
  });

  it('list_audit_entries passes the filters on: action, resource and time', async () => {
    const domain = await addDomain('filtered.example.com');
    const list = async (args: Record<string, unknown>) =>
      structured<{ entries: { action: string; resource_id: string }[]; total: number }>(
        await client.callTool({ name: 'list_audit_entries', arguments: args }),
      );
    const byResource = await list({ resource_type: 'domain', resource_id: domain.id });
    expect(byResource.entries).toEqual([expect.objectContaining({ action: 'domain.created', resource_id: domain.id })]);
    expect((await list({ action: 'domain.created', resource_id: domain.id })).total).toBe(1);
    expect((await list({ action: 'domain.deleted', resource_id: domain.id })).total).toBe(0);
    expect((await list({ resource_id: domain.id, from: '2999-01-01T00:00:00Z' })).total).toBe(0);
  });

  it('summarises a bulk action: its ids by their count, linked to the events page', async () => {
    // With INGEST_CANONICAL_HOST set, webhooks are taken on the organization's own host only.
    const { ingest_url } = structured<{ ingest_url: string }>(
      await client.callTool({ name: 'get_ingest_endpoint', arguments: {} }),
    );
    const host = new URL(ingest_url).host;
    const ingest = async () =>
      (await relay.pipeline.http.post('/bulk').set('host', host).set('content-type', 'application/json').send('{}'))
        .body.id as string;
    const ids = [await ingest(), await ingest()];
    const admin = await relay.token('admin');
    await relay.pipeline.http.post('/events/bulk/delete').set('authorization', admin).send({ ids }).expect(200);
    const { entries } = structured<{ entries: Record<string, unknown>[] }>(
      await client.callTool({ name: 'list_audit_entries', arguments: { per_page: 1 } }),
    );
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'events.bulk_deleted',
        api_key_id: null,
        details: expect.stringContaining('ids=[2 items]'),
        link: expect.stringMatching(/\/app\/events$/),
      }),
    ]);
    expect(entries[0]!.details).not.toContain(ids[0]);
  });

  it('caps per_page at 100', async () => {
    const result = await client
      .callTool({ name: 'list_audit_entries', arguments: { per_page: 101 } })
      .catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('per_page');
  });

  it('refuses domain tools to a key without organization:manage, changing nothing', async () => {
    const domain = await addDomain('refused.example.com');
    dns.set(domain.domain, { cname: CANONICAL });
    dns.set(`_relay-verification.${domain.domain}`, { txt: [domain.verification_token] });
    const reader = await relay.connect(await relay.key(['events:read', 'rules:read']));
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_audit_entries');
    expect(names).not.toContain('list_domains');
    expect(names).not.toContain('verify_domain');
    const result = await reader.callTool({ name: 'verify_domain', arguments: { id: domain.id } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('verify_domain needs the organization:manage scope with the admin role');
    const row = await relay.pipeline.store.prisma.customDomain.findUniqueOrThrow({ where: { id: domain.id } });
    expect(row).toMatchObject({ status: 'pending', lastCheckedAt: null });
  });

  it('annotates the reads as read-only and verify_domain as idempotent', async () => {
    const hints = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations]));
    expect(hints.list_audit_entries).toMatchObject({ readOnlyHint: true });
    expect(hints.list_domains).toMatchObject({ readOnlyHint: true });
    expect(hints.get_ingest_endpoint).toMatchObject({ readOnlyHint: true });
    expect(hints.verify_domain).toMatchObject({ idempotentHint: true, destructiveHint: false });
  });
});
