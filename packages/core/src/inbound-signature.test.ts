import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { safeEqual, verifyInboundSignature, type InboundSignatureInput } from './inbound-signature';
import type { VerificationOption } from './rule-options';

type Headers = InboundSignatureInput['headers'];
const verify = (
  option: VerificationOption,
  secrets: string[],
  body: string | Buffer,
  headers: Headers,
  nowSeconds = 1_700_000_000,
) => verifyInboundSignature({ option, secrets, body: Buffer.from(body), headers, nowSeconds });
const mismatch = { ok: false, reason: 'mismatch' };
const hmacOf = (algorithm: string, key: string | Buffer, data: string) =>
  createHmac(algorithm, key).update(data).digest();

describe('inbound signatures: the senders’ published examples', () => {
  it('GitHub: the X-Hub-Signature-256 example of its docs', () => {
    const headers = {
      'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    };
    expect(verify({ preset: 'github' }, ["It's a Secret to Everybody"], 'Hello, World!', headers)).toEqual({
      ok: true,
    });
    expect(verify({ preset: 'github' }, ["It's a Secret to Everybody"], 'Hello, World?', headers)).toEqual(mismatch);
  });

  it('Slack: the v0 example of its docs, within the tolerance of its timestamp', () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V' +
      '&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=' +
      '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = {
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    const secret = ['8f742231b10e8888abcd99yyyzzz85a5'];
    expect(verify({ preset: 'slack' }, secret, body, headers, 1531420618 + 60)).toEqual({ ok: true });
    expect(verify({ preset: 'slack' }, secret, body, headers, 1531420618 + 301)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verify({ preset: 'slack', tolerance_seconds: 600 }, secret, body, headers, 1531420618 + 301)).toEqual({
      ok: true,
    });
    expect(verify({ preset: 'slack' }, secret, `${body}&x=1`, headers, 1531420618)).toEqual(mismatch);
  });

  it('Standard Webhooks: the example of the specification, and what the reference library signs', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const option = { preset: 'standard_webhooks' } as const;
    expect(verify(option, [secret], '{"test": 2432232314}', headers, 1614265330)).toEqual({ ok: true });
    expect(verify(option, [secret], '{"test": 2432232315}', headers, 1614265330)).toEqual(mismatch);
    // The id is signed too: the same signature under another id is refused.
    expect(
      verify(option, [secret], '{"test": 2432232314}', { ...headers, 'webhook-id': 'msg_other' }, 1614265330),
    ).toEqual(mismatch);

    const now = new Date(1_700_000_000_000);
    const signed = new Webhook(secret).sign('msg_1', now, '{"a":1}');
    const fromLibrary = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': signed };
    expect(verify(option, [secret], '{"a":1}', fromLibrary)).toEqual({ ok: true });
    // Another version beside v1 (v1a, asymmetric) is skipped; a v1 among them still verifies.
    const mixed = { ...fromLibrary, 'webhook-signature': `v1a,AAAA ${signed}` };
    expect(verify(option, [secret], '{"a":1}', mixed)).toEqual({ ok: true });
  });
});

describe('inbound signatures: computed as each sender documents', () => {
  const body = '{"id":"evt_1","type":"payment_intent.succeeded"}';
  const now = 1_700_000_000;

  it('Stripe: t and any v1 over "<t>.<body>", the whsec_ secret as given, t within the tolerance', () => {
    const secret = 'whsec_test_secret_value';
    const v1 = (s: string, t: number) => hmacOf('sha256', s, `${t}.${body}`).toString('hex');
    const header = (t: number, ...sigs: string[]) => ({
      'stripe-signature': [`t=${t}`, ...sigs.map((s) => `v1=${s}`), `v0=${'0'.repeat(64)}`].join(','),
    });
    expect(verify({ preset: 'stripe' }, [secret], body, header(now, v1(secret, now)))).toEqual({ ok: true });
    // Stripe lists one v1 per live secret during its own rollover: any one verifies.
    expect(verify({ preset: 'stripe' }, [secret], body, header(now, v1('other', now), v1(secret, now)))).toEqual({
      ok: true,
    });
    expect(verify({ preset: 'stripe' }, [secret], body, header(now - 301, v1(secret, now - 301)))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verify({ preset: 'stripe' }, [secret], body, header(now + 10, v1(secret, now)))).toEqual(mismatch);
    expect(verify({ preset: 'stripe' }, [secret], body, { 'stripe-signature': `t=${now}` })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(
      verify({ preset: 'stripe' }, [secret], body, { 'stripe-signature': `t=soon,v1=${v1(secret, now)}` }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('Shopify: base64 HMAC-SHA256 of the body in X-Shopify-Hmac-Sha256', () => {
    const signature = hmacOf('sha256', 'shpss_secret', body).toString('base64');
    const option = { preset: 'shopify' } as const;
    expect(verify(option, ['shpss_secret'], body, { 'x-shopify-hmac-sha256': signature })).toEqual({ ok: true });
    expect(verify(option, ['wrong'], body, { 'x-shopify-hmac-sha256': signature })).toEqual(mismatch);
    // The hex form of the same digest is not Shopify's encoding.
    const hex = hmacOf('sha256', 'shpss_secret', body).toString('hex');
    expect(verify(option, ['shpss_secret'], body, { 'x-shopify-hmac-sha256': hex })).toEqual(mismatch);
  });

  it('generic hmac: header, algorithm, encoding and prefix as configured', () => {
    const option: VerificationOption = {
      preset: 'hmac',
      header: 'X-Signature',
      algorithm: 'sha512',
      encoding: 'base64',
      prefix: 'sha512=',
    };
    const digest = hmacOf('sha512', 'k', body).toString('base64');
    expect(verify(option, ['k'], body, { 'x-signature': `sha512=${digest}` })).toEqual({ ok: true });
    expect(verify(option, ['k'], body, { 'x-signature': `SHA512=${digest}` })).toEqual({ ok: true });
    expect(verify(option, ['k'], body, { 'x-signature': digest })).toEqual({ ok: false, reason: 'malformed' });
    expect(verify(option, ['k'], body, { 'x-other': digest })).toEqual({ ok: false, reason: 'missing_signature' });
    const sha1 = { preset: 'hmac', header: 'x-sig' } as const;
    expect(
      verify({ ...sha1, algorithm: 'sha1' }, ['k'], body, { 'x-sig': hmacOf('sha1', 'k', body).toString('hex') }),
    ).toEqual({ ok: true });
    // Defaults: sha256, hex, no prefix.
    expect(verify(sha1, ['k'], body, { 'x-sig': hmacOf('sha256', 'k', body).toString('hex') })).toEqual({ ok: true });
  });
});

describe('inbound signatures: the worked examples of docs/rules.md', () => {
  it('Stripe and Shopify', () => {
    const stripe = {
      'stripe-signature': 't=1700000000,v1=0c8670ed117751cc551a20e35839447075c42800ea3cf3e8a2fbda99cd1e6edd',
    };
    const event = '{"id":"evt_1","object":"event"}';
    expect(verify({ preset: 'stripe' }, ['whsec_test_secret'], event, stripe, 1_700_000_100)).toEqual({ ok: true });
    const shopify = { 'x-shopify-hmac-sha256': '5A3oQQfW+WMeNQwhapvpG0xvKI5Ip4Bp9W/9ifwwyGk=' };
    expect(verify({ preset: 'shopify' }, ['shopify-secret'], '{"id":820982911946154508}', shopify)).toEqual({
      ok: true,
    });
  });
});

describe('inbound signatures: refusals', () => {
  const body = '{"a":1}';
  const sign = (secret: string) => ({
    'x-hub-signature-256': `sha256=${hmacOf('sha256', secret, body).toString('hex')}`,
  });

  it('a forged, truncated, non-hex or missing signature fails without throwing', () => {
    const github = { preset: 'github' } as const;
    expect(verify(github, ['s'], body, { 'x-hub-signature-256': `sha256=${'ab'.repeat(32)}` })).toEqual(mismatch);
    expect(verify(github, ['s'], body, { 'x-hub-signature-256': 'sha256=abcd' })).toEqual(mismatch);
    expect(verify(github, ['s'], body, { 'x-hub-signature-256': 'sha256=zz' })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verify(github, ['s'], body, {})).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verify({ preset: 'slack' }, ['s'], body, { 'x-slack-signature': 'v0=ab' })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    expect(verify({ preset: 'standard_webhooks' }, ['whsec_AAAA'], body, {})).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
  });

  it('either secret of a rotation verifies; no secret verifies nothing', () => {
    const github = { preset: 'github' } as const;
    expect(verify(github, ['new', 'old'], body, sign('old'))).toEqual({ ok: true });
    expect(verify(github, ['new', 'old'], body, sign('new'))).toEqual({ ok: true });
    expect(verify(github, ['new'], body, sign('old'))).toEqual(mismatch);
    expect(verify(github, [], body, sign('old'))).toEqual(mismatch);
  });

  it('safeEqual compares lengths first', () => {
    expect(safeEqual(Buffer.from('ab'), Buffer.from('ab'))).toBe(true);
    expect(safeEqual(Buffer.from('ab'), Buffer.from('abc'))).toBe(false);
  });
});
