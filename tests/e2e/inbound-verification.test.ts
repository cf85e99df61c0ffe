import { createHmac } from 'node:crypto';
import { ERROR_CODES } from '@relay/core';
import { Webhook } from 'standardwebhooks';
import { startPipeline, userCredential, type Pipeline } from './harness';
import { parseExposition, valueOf } from './metrics-text';

// Each sender's signature computed as its documentation describes (Standard Webhooks with its
// reference library), sent to a rule with that preset: signed ones are stored, forged ones refused.
const hmac = (algorithm: string, key: string | Buffer, data: string) => createHmac(algorithm, key).update(data);
const nowSeconds = () => Math.floor(Date.now() / 1000);
type Signer = (secret: string, body: string) => Record<string, string>;
const SIGNERS: Record<string, { secret: string; sign: Signer; option?: Record<string, unknown> }> = {
  github: {
    secret: 'github-webhook-secret',
    sign: (secret, body) => ({ 'x-hub-signature-256': `sha256=${hmac('sha256', secret, body).digest('hex')}` }),
  },
  stripe: {
    secret: 'whsec_stripe_endpoint_secret',
    sign: (secret, body) => {
      const t = nowSeconds();
      return { 'stripe-signature': `t=${t},v1=${hmac('sha256', secret, `${t}.${body}`).digest('hex')}` };
    },
  },
  shopify: {
    secret: 'shopify-app-client-secret',
    sign: (secret, body) => ({ 'x-shopify-hmac-sha256': hmac('sha256', secret, body).digest('base64') }),
  },
  slack: {
    secret: '8f742231b10e8888abcd99yyyzzz85a5',
    sign: (secret, body) => {
      const t = String(nowSeconds());
      const signature = `v0=${hmac('sha256', secret, `v0:${t}:${body}`).digest('hex')}`;
      return { 'x-slack-request-timestamp': t, 'x-slack-signature': signature };
    },
  },
  standard_webhooks: {
    secret: `whsec_${Buffer.from('standard-webhooks-key-bytes-0123').toString('base64')}`,
    sign: (secret, body) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(nowSeconds()),
      // The library takes a whsec_ secret, or the key's base64 (a plain secret is its UTF-8 bytes).
      'webhook-signature': new Webhook(
        secret.startsWith('whsec_') ? secret : Buffer.from(secret).toString('base64'),
      ).sign('msg_1', new Date(), body),
    }),
  },
  hmac: {
    secret: 'generic-shared-secret',
    option: { header: 'x-signature', algorithm: 'sha1', encoding: 'base64', prefix: 'sha1=' },
    sign: (secret, body) => ({ 'x-signature': `sha1=${hmac('sha1', secret, body).digest('base64')}` }),
  },
};

describe('inbound signature verification', () => {
  let pipeline: Pipeline;
  let admin: string;
  beforeAll(async () => {
    // No cache of the rule's options: each test sees its rule changes at once.
    pipeline = await startPipeline({ api: { INGEST_HOST_CACHE_MS: '0' }, worker: false });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(() => pipeline.close());

  const createRule = (body: Record<string, unknown>) =>
    pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ target_url: 'http://127.0.0.1:8080/unused', ...body });
  const ingest = (source: string, body: string, headers: Record<string, string>) =>
    pipeline.http
      .post(`/${source}`)
      .set({ 'content-type': 'application/json', ...headers })
      .send(body);
  const stored = (source: string) => pipeline.store.prisma.event.count({ where: { source } });
  const ruleOf = async (id: string) =>
    (await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body;
  const expectRefused = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBe(401);
    // A generic answer: nothing says which part (header, timestamp, digest) failed.
    expect(res.body).toMatchObject({ code: 'signature_invalid', detail: ERROR_CODES.signature_invalid });
    expect(res.body).not.toHaveProperty('reason');
  };

  it.each(Object.keys(SIGNERS))('%s: a signed webhook is stored, a forged one refused and counted', async (preset) => {
    const { secret, sign, option } = SIGNERS[preset]!;
    const source = `verified-${preset.replace('_', '-')}`;
    const rule = await createRule({ source, verification: { preset, ...option }, verification_secret: secret });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ has_verification_secret: true, signature_failures: { count: 0 } });
    expect(JSON.stringify(rule.body)).not.toContain(secret);

    const body = `{"rule":"${preset}","n":1}`;
    const accepted = await ingest(source, body, sign(secret, body)).expect(202);
    const event = await pipeline.eventById(accepted.body.id);
    expect(Buffer.from(event!.body).toString()).toBe(body);

    expectRefused(await ingest(source, body, sign('a-forged-secret-value', body)));
    expectRefused(await ingest(source, body.replace('1', '2'), sign(secret, body)));
    expectRefused(await ingest(source, body, {}));
    expect(await stored(source)).toBe(1);
    const counted = await ruleOf(rule.body.id);
    expect(counted.signature_failures.count).toBe(3);
    expect(Date.parse(counted.signature_failures.last_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a stale Stripe timestamp is refused; another source without verification is untouched', async () => {
    const { secret } = SIGNERS.stripe!;
    await createRule({ source: 'stale', verification: { preset: 'stripe' }, verification_secret: secret }).expect(201);
    const body = '{"id":"evt_1"}';
    const t = nowSeconds() - 301;
    const header = `t=${t},v1=${hmac('sha256', secret, `${t}.${body}`).digest('hex')}`;
    expectRefused(await ingest('stale', body, { 'stripe-signature': header }));
    expect(await stored('stale')).toBe(0);
    await createRule({ source: 'open' }).expect(201);
    await ingest('open', body, {}).expect(202);
  });

  it('rotation: both secrets verify during the window, the old one not after it', async () => {
    const { sign } = SIGNERS.github!;
    const rule = await createRule({
      source: 'rotating-in',
      verification: { preset: 'github' },
      verification_secret: 'old-inbound-secret',
    }).expect(201);
    const id = rule.body.id as string;
    const rotated = await pipeline.http
      .post(`/rules/${id}/verification-secret/rotate`)
      .set('authorization', admin)
      .send({ verification_secret: 'new-inbound-secret', previous_secret_valid_for_seconds: 3600 })
      .expect(200);
    expect(Date.parse(rotated.body.previous_verification_secret_expires_at)).toBeGreaterThan(Date.now() + 3_500_000);
    expect(JSON.stringify(rotated.body)).not.toContain('inbound-secret');
    const audit = await pipeline.store.prisma.auditEntry.findFirst({
      where: { action: 'rule.verification_secret_rotated', resourceId: id },
    });
    expect(audit).not.toBeNull();
    expect(JSON.stringify(audit)).not.toContain('inbound-secret');
    const row = await pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id } });
    expect(`${row.verificationSecret} ${row.previousVerificationSecret}`).not.toContain('inbound-secret');
    expect(row.verificationSecret).toMatch(/^enc:v1:test:/);

    const body = '{"rotating":true}';
    await ingest('rotating-in', body, sign('new-inbound-secret', body)).expect(202);
    await ingest('rotating-in', body, sign('old-inbound-secret', body)).expect(202);
    // The window over (as if an hour passed), only the new secret verifies.
    await pipeline.store.prisma.rule.update({
      where: { id },
      data: { previousVerificationExpiresAt: new Date(Date.now() - 1000) },
    });
    await ingest('rotating-in', body, sign('new-inbound-secret', body)).expect(202);
    expectRefused(await ingest('rotating-in', body, sign('old-inbound-secret', body)));
    expect((await ruleOf(id)).previous_verification_secret_expires_at).toBeNull();

    // A window of 0 retires the replaced secret at once.
    await pipeline.http
      .post(`/rules/${id}/verification-secret/rotate`)
      .set('authorization', admin)
      .send({ verification_secret: 'third-inbound-secret', previous_secret_valid_for_seconds: 0 })
      .expect(200);
    expectRefused(await ingest('rotating-in', body, sign('new-inbound-secret', body)));
    await ingest('rotating-in', body, sign('third-inbound-secret', body)).expect(202);
  });

  it('verification needs a secret: 422 verification_secret_required, nothing written', async () => {
    const refused = await createRule({ source: 'no-secret', verification: { preset: 'github' } }).expect(422);
    expect(refused.body.code).toBe('verification_secret_required');
    expect(await pipeline.store.prisma.rule.count({ where: { source: 'no-secret' } })).toBe(0);

    const rule = await createRule({ source: 'later-secret' }).expect(201);
    const id = rule.body.id as string;
    const patch = (body: Record<string, unknown>) =>
      pipeline.http.patch(`/rules/${id}`).set('authorization', admin).send(body);
    expect((await patch({ verification: { preset: 'shopify' } }).expect(422)).body.code).toBe(
      'verification_secret_required',
    );
    await patch({ verification_secret: 'shopify-secret-1' }).expect(200);
    const on = await patch({ verification: { preset: 'shopify' } }).expect(200);
    expect(on.body).toMatchObject({ verification: { preset: 'shopify' }, has_verification_secret: true });
    expect((await patch({ verification_secret: null }).expect(422)).body.code).toBe('verification_secret_required');
    // Turning verification off makes a webhook without a signature welcome again.
    await patch({ verification: null }).expect(200);
    await ingest('later-secret', '{}', {}).expect(202);
  });

  it('rotation needs rules:write and a known rule', async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const unknown = '00000000-0000-7000-8000-00000000beef';
    const path = `/rules/${unknown}/verification-secret/rotate`;
    const body = { verification_secret: 'x-secret' };
    await pipeline.http.post(path).set('authorization', viewer).send(body).expect(403);
    await pipeline.http.post(path).set('authorization', admin).send(body).expect(404);
  });

  it('refusals are counted by the ingest metrics under their code', async () => {
    const scraped = parseExposition((await pipeline.http.get('/metrics').expect(200)).text);
    const refused = valueOf(scraped, 'relay_ingest_requests_total', {
      outcome: 'refused',
      reason: 'signature_invalid',
    });
    expect(refused).toBeGreaterThanOrEqual(Object.keys(SIGNERS).length * 3);
  });
});
