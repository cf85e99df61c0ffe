import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startCliRelay, type CliRelay } from './cli-harness';

const TOKEN = 'platform-admin-token-0123456789abcdef';
const ORG_PASSWORD = 'Correct-Horse-Battery-9';
const configOf = (home: string) => path.join(home, '.config', 'webhook-relay', 'config.json');

describe('relay platform (operators)', () => {
  let relay: CliRelay;
  let operator: string;
  beforeAll(async () => {
    relay = await startCliRelay({ PLATFORM_ADMIN_TOKEN: TOKEN, INGEST_CANONICAL_HOST: 'relay.test' });
    const boot = await relay.pipeline.http
      .post('/api/platform/bootstrap/operator')
      .set('authorization', `Bearer ${TOKEN}`)
      .send({ username: 'root' })
      .expect(201);
    operator = relay.newHome();
    const login = await relay.run(operator, ['login', '--url', relay.url, '--username', 'root', '--password-stdin'], {
      input: `${boot.body.password as string}\n`,
    });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('as platform operator root');
  });
  afterAll(() => relay.close());

  const createOrg = (home: string, slug: string, extra: string[] = []) =>
    relay.run(
      home,
      [
        'platform',
        'orgs',
        'create',
        '--slug',
        slug,
        '--name',
        `${slug} Inc`,
        '--admin-username',
        `${slug}-admin`,
        '--admin-email',
        `admin@${slug}.example`,
        '--admin-password-stdin',
        ...extra,
      ],
      { input: `${ORG_PASSWORD}\n` },
    );

  it("keeps the operator's session cookie and its expiry in the profile, never the password", () => {
    const text = readFileSync(configOf(operator), 'utf8');
    const profile = JSON.parse(text).profiles.default;
    expect(profile).toMatchObject({ kind: 'operator', username: 'root', session_cookie: expect.stringMatching(/=/) });
    expect(Date.parse(profile.session_expires_at)).toBeGreaterThan(Date.now());
    expect(profile.token).toBeUndefined();
  });

  it('creates an organization whose admin can sign in; orgs list, orgs show and platform audit have it', async () => {
    const created = await createOrg(operator, 'acme', ['--billing-email', 'billing@acme.example']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/Created organization acme \([0-9a-f-]{36}\) with admin acme-admin\./);
    expect(created.stdout + created.stderr).not.toContain(ORG_PASSWORD);
    const org = await relay.pipeline.store.prisma.organization.findFirst({ where: { slug: 'acme' } });
    expect(org).toMatchObject({ name: 'acme Inc', billingContactEmail: 'billing@acme.example' });
    const login = await relay.pipeline.http
      .post('/api/auth/login')
      .send({ username: 'acme-admin', password: ORG_PASSWORD })
      .expect(200);
    expect(login.body.organization.id).toBe(org!.id);

    const list = await relay.run(operator, ['platform', 'orgs', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${org!.id}\\s+acme\\s+acme Inc\\s+\\S+\\s+active`));
    const json = JSON.parse(
      (await relay.run(operator, ['platform', 'orgs', 'list', '--search', 'acme', '--json'])).stdout,
    );
    expect(json.organizations.map((o: { slug: string }) => o.slug)).toEqual(['acme']);
    const show = await relay.run(operator, ['platform', 'orgs', 'show', org!.id]);
    expect(show.stdout).toMatch(/^slug:\s+acme$/m);
    expect(show.stdout).toMatch(/^users:\s+admin 1/m);
    expect(show.stdout).toMatch(/^ingest URLs:\s+\S*acme\.relay\.test/m);
    const audit = await relay.run(operator, ['platform', 'audit']);
    expect(audit.stdout).toMatch(
      new RegExp(`root@operator.invalid\\s+organization.created\\s+organization ${org!.id}`),
    );
    // The filters of `relay audit`, passed on to GET /api/platform/audit.
    const filtered = JSON.parse(
      (
        await relay.run(operator, [
          'platform',
          'audit',
          '--action',
          'organization.created',
          '--resource',
          org!.id,
          '--from',
          '1h',
          '--json',
        ])
      ).stdout,
    );
    expect(filtered.total).toBe(1);
    expect(filtered.entries[0]).toMatchObject({ action: 'organization.created', resource_id: org!.id });
    const none = await relay.run(operator, ['platform', 'audit', '--action', 'organization.deleted']);
    expect(none.stdout).toContain('No audit entries on this page.');
  });

  it('shows and changes a subscription', async () => {
    const created = JSON.parse((await createOrg(operator, 'subs', ['--json'])).stdout);
    const id = created.organization.id as string;
    const shown = await relay.run(operator, ['platform', 'subscription', id]);
    expect(shown.stdout).toMatch(/^status:\s+active$/m);
    const changed = await relay.run(operator, [
      'platform',
      'subscription',
      id,
      '--status',
      'suspended',
      '--plan',
      'pro',
      '--event-limit',
      '5000',
      '--period-end',
      '2027-01-01T00:00:00Z',
    ]);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toMatch(/^event limit:\s+5000 a month$/m);
    const org = await relay.pipeline.store.prisma.organization.findUnique({ where: { id } });
    expect(org).toMatchObject({ subscriptionStatus: 'suspended', plan: 'pro', monthlyEventLimit: 5000 });
    const unlimited = JSON.parse(
      (await relay.run(operator, ['platform', 'subscription', id, '--event-limit', 'unlimited', '--json'])).stdout,
    );
    expect(unlimited.subscription.monthly_event_limit).toBeNull();
    expect((await relay.run(operator, ['platform', 'subscription', id, '--status', 'gone'])).code).toBe(2);
    expect((await relay.run(operator, ['platform', 'subscription', id, '--event-limit', '-3'])).code).toBe(2);
    // The organization's own limits: a number, or "default" for the install-wide setting.
    const limited = await relay.run(operator, [
      'platform',
      'subscription',
      id,
      '--ingest-rate-limit',
      '50',
      '--api-rate-limit',
      '20',
      '--retention-days',
      '7',
    ]);
    expect(limited.stdout).toMatch(/^ingest rate limit:\s+50 a window$/m);
    expect(limited.stdout).toMatch(/^retention:\s+7 days$/m);
    expect(await relay.pipeline.store.prisma.organization.findUnique({ where: { id } })).toMatchObject({
      ingestRateLimit: 50,
      apiRateLimit: 20,
      retentionDays: 7,
    });
    const reset = JSON.parse(
      (await relay.run(operator, ['platform', 'subscription', id, '--ingest-rate-limit', 'default', '--json'])).stdout,
    );
    expect(reset.subscription).toMatchObject({ ingest_rate_limit: null, api_rate_limit: 20 });
    expect((await relay.run(operator, ['platform', 'subscription', id, '--retention-days', '0'])).code).toBe(2);
  });

  it('shows the overview; an organization admin is refused the platform commands', async () => {
    const overview = JSON.parse((await relay.run(operator, ['platform', 'overview', '--json'])).stdout);
    expect(overview.organizations).toBe(await relay.pipeline.store.prisma.organization.count());
    expect((await relay.run(operator, ['platform', 'overview'])).stdout).toMatch(/^organizations:\s+\d+ \(/m);
    const admin = await relay.loginAs('admin');
    const refused = await relay.run(admin, ['platform', 'overview']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\[forbidden\]$/m);
  });

  it('says "log in again" once the stored session has expired, without calling the relay', async () => {
    const file = configOf(operator);
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.profiles.default.session_expires_at = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
    const before = await relay.pipeline.store.prisma.organization.count();
    const expired = await createOrg(operator, 'late');
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(/session of profile "default" expired at .*log in again/);
    expect(await relay.pipeline.store.prisma.organization.count()).toBe(before);
    expect((await relay.run(operator, ['platform', 'orgs', 'list'])).stderr).toContain('log in again');
  });
});
