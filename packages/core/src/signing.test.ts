import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  KEYS_KEPT,
  relaySignature,
  standardWebhookHeaders,
  standardWebhookKey,
  standardWebhookKeyObject,
} from './signing';

describe('signing', () => {
  const body = Buffer.from('{"a": 1, "b": "é"}');

  it('X-Relay-Signature is the hex HMAC-SHA256 of the raw body', () => {
    expect(relaySignature('s3cret', body)).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
  });

  it('a whsec_ secret is base64 key bytes, any other secret its UTF-8 bytes', () => {
    expect(standardWebhookKey('whsec_AQID')).toEqual(Buffer.from([1, 2, 3]));
    expect(standardWebhookKey('plain')).toEqual(Buffer.from('plain'));
  });

  it('Standard Webhooks headers verify with the reference library, for both secret forms', () => {
    const ts = Math.floor(Date.now() / 1000);
    const whsec = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    expect(new Webhook(whsec).verify(body.toString(), { ...standardWebhookHeaders(whsec, 'evt_1', ts, body) })).toEqual(
      { a: 1, b: 'é' },
    );
    const headers = standardWebhookHeaders('plain-secret', 'evt_2', ts, body);
    expect(new Webhook(Buffer.from('plain-secret').toString('base64')).verify(body.toString(), { ...headers })).toEqual(
      { a: 1, b: 'é' },
    );
    expect(headers['webhook-signature']).toMatch(/^v1,/);
  });
});

describe('signing during a secret rotation', () => {
  const body = Buffer.from('{"rotating":true}');
  const ts = Math.floor(Date.now() / 1000);
  const [newer, older] = ['the-new-secret-value-1', 'the-old-secret-value-0'];

  it('lists one signature per secret, newest first, and either secret verifies', () => {
    const headers = standardWebhookHeaders([newer, older], 'evt_rot', ts, body);
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toEqual([
      standardWebhookHeaders(newer, 'evt_rot', ts, body)['webhook-signature'],
      standardWebhookHeaders(older, 'evt_rot', ts, body)['webhook-signature'],
    ]);
    for (const secret of [newer, older])
      expect(new Webhook(Buffer.from(secret).toString('base64')).verify(body.toString(), { ...headers })).toEqual({
        rotating: true,
      });
    expect(() =>
      new Webhook(Buffer.from('some-other-secret-x').toString('base64')).verify(body.toString(), { ...headers }),
    ).toThrow();
  });
});

describe("a secret's signing key", () => {
  it('is made once per secret, with the bytes of its Standard Webhooks key', () => {
    const whsec = `whsec_${Buffer.from('key-bytes-of-a-rule').toString('base64')}`;
    const key = standardWebhookKeyObject(whsec);
    expect(standardWebhookKeyObject(whsec)).toBe(key);
    expect(key.export()).toEqual(standardWebhookKey(whsec));
    expect(standardWebhookKeyObject('plain').export()).toEqual(Buffer.from('plain'));
  });

  it(`is made again once ${KEYS_KEPT} other secrets have been used since (the cache is bounded)`, () => {
    const first = standardWebhookKeyObject('the-first-secret');
    for (let i = 0; i < KEYS_KEPT; i++) standardWebhookKeyObject(`another-secret-${i}`);
    const again = standardWebhookKeyObject('the-first-secret');
    expect(again).not.toBe(first);
    expect(again.export()).toEqual(first.export());
  });
});
