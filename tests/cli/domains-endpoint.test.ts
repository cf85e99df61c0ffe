import { startDnsServer, type DnsServer } from '@relay/test-support';
import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

const CANONICAL = 'ingest.relay.test';

describe('relay domains and config endpoint', () => {
  let dns: DnsServer;
  let relay: CliRelay;
  let admin: string;
  let viewer: string;
  let api: string;
  beforeAll(async () => {
    dns = await startDnsServer();
    relay = await startCliRelay({
      INGEST_CANONICAL_HOST: CANONICAL,
      DNS_SERVERS: dns.address,
      INGEST_HOST_CACHE_MS: '0',
    });
    [admin, viewer] = await Promise.all([relay.loginAs('admin'), relay.loginAs('viewer')]);
    api = (await userCredential(relay.pipeline, 'admin')).authorization;
  });
  afterAll(async () => {
    await relay.close();
    await dns.close();
  });

  const domainsOf = async () =>
    (await relay.pipeline.http.get('/api/domains').set('authorization', api).expect(200)).body.domains as {
      id: string;
      domain: string;
      status: string;
      verification_token: string;
    }[];

  it('adds a domain and prints the CNAME and TXT records to create as a block', async () => {
    const added = await relay.run(admin, ['domains', 'add', 'Hooks.Example.com']);
    expect(added.code).toBe(0);
    const [domain] = (await domainsOf()).filter((d) => d.domain === 'hooks.example.com');
    expect(domain).toMatchObject({ status: 'pending' });
    expect(added.stdout).toContain(`Added hooks.example.com (pending), id ${domain!.id}.`);
    expect(added.stdout).toMatch(/^ {2}TYPE\s+NAME\s+VALUE$/m);
    expect(added.stdout).toMatch(
      new RegExp(`^ {2}CNAME\\s+hooks\\.example\\.com\\s+${CANONICAL.replace(/\./g, '\\.')}$`, 'm'),
    );
    expect(added.stdout).toMatch(
      new RegExp(`^ {2}TXT\\s+_relay-verification\\.hooks\\.example\\.com\\s+${domain!.verification_token}$`, 'm'),
    );
    expect(added.stdout).toContain(`relay domains verify ${domain!.id}`);
    const list = await relay.run(admin, ['domains', 'list']);
    expect(list.stdout).toMatch(new RegExp(`${domain!.id}\\s+hooks\\.example\\.com\\s+pending`));
  });

  it('verify says which record is wrong and fails; once both are right the domain is active', async () => {
    const domain = JSON.parse((await relay.run(admin, ['domains', 'add', 'shop.example.net', '--json'])).stdout) as {
      id: string;
      verification_token: string;
    };
    dns.set('shop.example.net', { cname: CANONICAL });
    const failed = await relay.run(admin, ['domains', 'verify', domain.id]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/CNAME\s+ok: shop\.example\.net/);
    expect(failed.stderr).toMatch(/TXT\s+missing: _relay-verification\.shop\.example\.net should be relay-verify-/);
    expect(failed.stderr).toMatch(/^error: .*\[domain_verification_failed\]$/m);
    expect((await domainsOf()).find((d) => d.id === domain.id)!.status).toBe('pending');

    dns.set('_relay-verification.shop.example.net', { txt: [domain.verification_token] });
    const verified = await relay.run(admin, ['domains', 'verify', domain.id]);
    expect(verified).toMatchObject({ code: 0, stdout: 'shop.example.net is active: it receives webhooks now.\n' });
    expect((await domainsOf()).find((d) => d.id === domain.id)!.status).toBe('active');

    // The organization's ingest URLs now include the domain.
    const endpoint = JSON.parse((await relay.run(viewer, ['config', 'endpoint', '--json'])).stdout);
    expect(endpoint.ingest_urls).toContain('http://shop.example.net/');
    const human = await relay.run(viewer, ['config', 'endpoint']);
    expect(human.stdout).toMatch(/^ingest URL:\s+http/m);
    expect(human.stdout).toMatch(/^\s+http:\/\/shop\.example\.net\/$/m);
  });

  it('answers config endpoint without credentials too (the URLs of the host asked)', async () => {
    const anonymous = await relay.run(relay.newHome(), ['config', 'endpoint', '--url', relay.url, '--json']);
    expect(anonymous.code).toBe(0);
    expect(JSON.parse(anonymous.stdout)).toMatchObject({ reserved_sources: expect.arrayContaining(['api']) });
  });

  it('refuses a viewer, and deletes only when confirmed', async () => {
    const refused = await relay.run(viewer, ['domains', 'add', 'viewer.example.org']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\[forbidden\]$/m);
    expect((await domainsOf()).some((d) => d.domain === 'viewer.example.org')).toBe(false);

    const id = (await domainsOf()).find((d) => d.domain === 'hooks.example.com')!.id;
    expect((await relay.run(admin, ['domains', 'delete', id])).code).toBe(2);
    expect((await domainsOf()).some((d) => d.id === id)).toBe(true);
    expect((await relay.run(admin, ['domains', 'delete', id, '--yes'])).code).toBe(0);
    expect((await domainsOf()).some((d) => d.id === id)).toBe(false);
  });
});
