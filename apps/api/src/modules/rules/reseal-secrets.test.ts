import { randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, openSecret, parseSecretKeys, sealSecret, sealedKeyId } from '@relay/core';
import { pino } from 'pino';
import { resealSecrets } from './reseal-secrets';
import { useServiceDatabase } from '../service-test-kit';

const store = useServiceDatabase();
const key = () => randomBytes(32).toString('base64');
const silent = pino({ level: 'silent' });

describe('re-sealing stored secrets at start', () => {
  it('seals plaintext and old-key rows with the current key, leaving rows under an unlisted key as they are', async () => {
    const [oldKey, newKey] = [`old:${key()}`, `new:${key()}`];
    const stranger = sealSecret(parseSecretKeys(`gone:${key()}`)!, 'unreadable');
    const rows = await Promise.all(
      [
        { signingSecret: 'plain-secret', previousSigningSecret: sealSecret(parseSecretKeys(oldKey)!, 'older') },
        { signingSecret: stranger },
        { signingSecret: null },
      ].map((secrets, i) =>
        store.db.prisma.rule.create({
          data: {
            name: randomUUID(),
            organizationId: DEFAULT_ORGANIZATION_ID,
            source: `s${i}`,
            targetUrl: 'https://example.com/',
            ...secrets,
          },
        }),
      ),
    );
    const keys = parseSecretKeys(`${newKey},${oldKey}`)!;
    expect(await resealSecrets(store.repositories(), keys, silent)).toBe(1);
    const [first, second, third] = await Promise.all(
      rows.map((r) => store.db.prisma.rule.findUniqueOrThrow({ where: { id: r.id } })),
    );
    expect([sealedKeyId(first!.signingSecret!), sealedKeyId(first!.previousSigningSecret!)]).toEqual(['new', 'new']);
    expect([openSecret(keys, first!.signingSecret!), openSecret(keys, first!.previousSigningSecret!)]).toEqual([
      'plain-secret',
      'older',
    ]);
    expect(second!.signingSecret).toBe(stranger);
    expect(third!.signingSecret).toBeNull();
    // Nothing left to do: a second start writes nothing.
    expect(await resealSecrets(store.repositories(), keys, silent)).toBe(0);
  });

  it('re-seals the inbound verification secrets too', async () => {
    const [oldKey, newKey] = [`vold:${key()}`, `vnew:${key()}`];
    const row = await store.db.prisma.rule.create({
      data: {
        name: randomUUID(),
        organizationId: DEFAULT_ORGANIZATION_ID,
        source: 'verified',
        targetUrl: 'https://example.com/',
        verificationSecret: 'plain-verification',
        previousVerificationSecret: sealSecret(parseSecretKeys(oldKey)!, 'older-verification'),
      },
    });
    const keys = parseSecretKeys(`${newKey},${oldKey}`)!;
    await resealSecrets(store.repositories(), keys, silent);
    const after = await store.db.prisma.rule.findUniqueOrThrow({ where: { id: row.id } });
    expect([sealedKeyId(after.verificationSecret!), sealedKeyId(after.previousVerificationSecret!)]).toEqual([
      'vnew',
      'vnew',
    ]);
    expect(openSecret(keys, after.verificationSecret!)).toBe('plain-verification');
    expect(openSecret(keys, after.previousVerificationSecret!)).toBe('older-verification');
  });

  it('does nothing without keys', async () => {
    expect(await resealSecrets(store.repositories(), undefined, silent)).toBe(0);
  });
});
