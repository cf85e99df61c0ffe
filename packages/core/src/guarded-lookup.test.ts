import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowlist, type TargetPolicy } from './target-policy';
import { createGuardedLookup } from './guarded-lookup';

const strict: TargetPolicy = { allowPrivate: false, allowlist: [] };

function lookupAll(lookup: ReturnType<typeof createGuardedLookup>, host: string): Promise<dns.LookupAddress[]> {
  return new Promise((resolve, reject) =>
    lookup(host, { all: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses as unknown as dns.LookupAddress[]),
    ),
  );
}

function lookupOne(lookup: ReturnType<typeof createGuardedLookup>, host: string): Promise<[string, number]> {
  return new Promise((resolve, reject) =>
    lookup(host, {}, (err, address, family) => (err ? reject(err) : resolve([address as string, family as number]))),
  );
}

const fake = (answers: dns.LookupAddress[]) =>
  ((_host: string, _opts: unknown, cb: (err: null, a: dns.LookupAddress[]) => void) => cb(null, answers)) as never;

describe('guarded lookup', () => {
  it('refuses localhost, which resolves to loopback', async () => {
    await expect(lookupAll(createGuardedLookup(strict), 'localhost')).rejects.toMatchObject({
      code: 'ERR_TARGET_BLOCKED',
    });
  });

  it('allows localhost when private targets are allowed or the name is allowlisted', async () => {
    await expect(
      lookupAll(createGuardedLookup({ allowPrivate: true, allowlist: [] }), 'localhost'),
    ).resolves.not.toHaveLength(0);
    await expect(
      lookupOne(createGuardedLookup({ allowPrivate: false, allowlist: parseAllowlist('localhost') }), 'localhost'),
    ).resolves.toEqual([expect.any(String), expect.any(Number)]);
  });

  it('refuses an answer where any one address is private (rebinding with mixed records)', async () => {
    const lookup = createGuardedLookup(
      strict,
      fake([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]),
    );
    await expect(lookupAll(lookup, 'mixed.example')).rejects.toMatchObject({ code: 'ERR_TARGET_BLOCKED' });
  });

  it('passes a public answer through in both callback shapes', async () => {
    const lookup = createGuardedLookup(
      strict,
      fake([
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::', family: 6 },
      ]),
    );
    await expect(lookupAll(lookup, 'public.example')).resolves.toHaveLength(2);
    await expect(lookupOne(lookup, 'public.example')).resolves.toEqual(['93.184.216.34', 4]);
  });

  it('stops a real request before it connects', async () => {
    let received = 0;
    const server = http.createServer((_req, res) => {
      received++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (policy: TargetPolicy) =>
      new Promise<number>((resolve, reject) => {
        const agent = new http.Agent({ lookup: createGuardedLookup(policy) });
        http
          .get({ host: 'localhost', port, agent, family: 4 }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
    try {
      await expect(get(strict)).rejects.toMatchObject({ code: 'ERR_TARGET_BLOCKED' });
      expect(received).toBe(0);
      await expect(get({ allowPrivate: true, allowlist: [] })).resolves.toBe(200);
      expect(received).toBe(1);
    } finally {
      server.close();
    }
  });
});
