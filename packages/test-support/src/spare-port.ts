import { readFileSync } from 'node:fs';
import net from 'node:net';

// A port that listen(0) handed out and that was then closed is back in the kernel's ephemeral range: the next
// listen(0) or outgoing connection of any process may take it before the process a test starts binds it. CI saw an
// api started on such a port answered by another test file's in-process server (supertest listens on port 0).
// Spare ports therefore come from below the ephemeral range, from a slice of their own per Jest worker, so neither
// the kernel nor a test running beside this one hands them out.

const LOWEST = 10_000;
const SLICES = 9; // slice 0 for a process outside Jest, one each for up to 8 workers
const LINUX_DEFAULT_LOW = 32_768;

function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || LINUX_DEFAULT_LOW;
  } catch {
    return LINUX_DEFAULT_LOW;
  }
}

function slice(): { start: number; size: number } | undefined {
  const size = Math.floor((ephemeralLow() - LOWEST) / SLICES);
  if (size < 100) return undefined; // the ephemeral range starts too low to leave room: let the kernel choose
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % SLICES;
  return { start: LOWEST + worker * size, size };
}

const own = slice();
// Each test file loads this module afresh: a random start keeps files of one worker from retrying the same ports.
let cursor = own ? Math.floor(Math.random() * own.size) : 0;

const listen = (port: number) =>
  new Promise<net.Server | undefined>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    // The wildcard address: it is refused when any address holds the port, the loopback included.
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => resolve(server));
  });

const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));

async function holdOne(): Promise<net.Server> {
  if (!own) {
    const server = await listen(0);
    if (server) return server;
    throw new Error('no port is free');
  }
  for (let tried = 0; tried < own.size; tried++) {
    const port = own.start + (cursor++ % own.size);
    const server = await listen(port);
    if (server) return server;
  }
  throw new Error(`no free port in ${own.start}-${own.start + own.size - 1}`);
}

/** Distinct ports nobody listens on now, that no listen(0) or outgoing connection will be given meanwhile. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  for (let i = 0; i < count; i++) servers.push(await holdOne());
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map(close));
  return ports;
}

/** One port as {@link freePorts} gives them. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
