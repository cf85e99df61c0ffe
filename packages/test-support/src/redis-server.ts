import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './spare-port';
import { waitFor } from './wait-for';

export interface OwnRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  /** Kills the server; its data is gone (it keeps nothing on disk). */
  stop(): Promise<void>;
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

// Fault tests stop and restart a Redis of their own on a spare port, never the machine's.
export async function ownRedis(port?: number): Promise<OwnRedis> {
  const chosen = port ?? (await freePort());
  let child: ChildProcess | undefined;
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(chosen),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
        ],
        {
          stdio: 'ignore',
        },
      );
      await waitFor(() => canConnect(chosen), 10_000, `redis-server on ${chosen}`);
    },
    async stop() {
      // A server killed before has no exit code, only the signal: stopping it again is a no-op.
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      await waitFor(async () => !(await canConnect(chosen)), 5_000, 'redis to stop');
    },
  };
}
