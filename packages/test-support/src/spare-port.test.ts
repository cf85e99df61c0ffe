import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePorts } from './spare-port';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const listenOn = (port: number, host: string) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));

describe('spare ports', () => {
  it('come from below the ephemeral range, distinct, from this Jest worker’s own slice', async () => {
    const ports = await freePorts(50);
    expect(new Set(ports).size).toBe(50);
    const slice = Math.floor((ephemeralLow - 10_000) / 9);
    const start = 10_000 + (Number(process.env.JEST_WORKER_ID ?? 0) % 9) * slice;
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(start);
      expect(port).toBeLessThan(Math.min(start + slice, ephemeralLow));
    }
  });

  it('are never a port the kernel hands to listen(0) meanwhile', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => listenOn(0, '127.0.0.1')));
    const kernel = held.map((server) => (server.address() as net.AddressInfo).port);
    await Promise.all(held.map(close));
    for (const port of kernel) expect(port).toBeGreaterThanOrEqual(ephemeralLow);
    expect(await freePorts(20)).toEqual(expect.not.arrayContaining(kernel));
  });

  it('skip a port that something holds on the loopback', async () => {
    const [first] = await freePorts(1);
    // The next one the cursor would give is first + 1 (the slice is walked in order): hold it.
    const taken = await listenOn(first! + 1, '127.0.0.1');
    try {
      const [next] = await freePorts(1);
      expect(next).not.toBe(first! + 1);
      expect(next).toBe(first! + 2);
    } finally {
      await close(taken);
    }
  });
});
