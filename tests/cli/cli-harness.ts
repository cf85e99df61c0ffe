import { randomUUID } from 'node:crypto';
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Role } from '@relay/core';
import { waitFor } from '@relay/test-support';
import type { Express } from 'express';
import type { ApiRuntime } from '../../apps/api/src/runtime';
import { FAST_HASH_ENV, seedUser, startApiReplica, startPipeline, type Env, type Pipeline } from '../e2e/harness';
import { listen } from '../e2e/sse-client';

const ROOT = path.resolve(__dirname, '../..');

/** Builds the `relay` bundle into a temporary folder, as `pnpm build` does into apps/cli/dist. */
export function buildRelay(): { bin: string; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'relay-cli-build-'));
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-cli.mjs'), '--outdir', dir, '--quiet'], {
    stdio: 'inherit',
  });
  return { bin: path.join(dir, 'relay.mjs'), dir };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Env;
  /** Written to the process's stdin, then closed (stdin is never a terminal here). */
  input?: string;
  timeoutMs?: number;
}

/**
 * Runs the built binary with plain `node`, in its own config home, without colour (NO_COLOR) and outside CI so
 * the tests see what a user's script sees. Asynchronous: the api under test runs in this process.
 */
export function runBinary(bin: string, args: string[], home: string, options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        NO_COLOR: '1',
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`relay ${args.join(' ')} did not end in ${options.timeoutMs ?? 20_000} ms\n${stdout}\n${stderr}`),
      );
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A long-running `relay` process (listen, tail): its output so far, waits on it, signals and its exit. */
export interface SpawnedRelay {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Waits until stdout or stderr (`which`) matches. */
  waitForOutput(which: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (null after a signal) once the process ended. */
  exited: Promise<number | null>;
  /** Kills it if still running (a test's cleanup). */
  kill(): void;
}

/** Starts the built binary in the background, with the same environment as runBinary. */
export function spawnBinary(bin: string, args: string[], home: string, env: Env = {}): SpawnedRelay {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForOutput: (which, pattern, timeoutMs = 10_000) =>
      waitFor(
        async () => (pattern.test(which === 'stdout' ? stdout : stderr) ? true : undefined),
        timeoutMs,
        `${which} to match ${pattern}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
      ).then(() => undefined),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Serves an Express app on a loopback port (0: any free one), as a real process would. */
async function serveOn(app: Express, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A relay (api + worker on a loopback port) and the built CLI, with helpers to run it as different users. */
export interface CliRelay {
  pipeline: Pipeline;
  url: string;
  bin: string;
  /** A fresh config home (one per simulated user). */
  newHome(): string;
  run(home: string, args: string[], options?: RunOptions): Promise<RunResult>;
  /** Starts the binary in the background (killed at close() if still running). */
  spawn(home: string, args: string[], env?: Env): SpawnedRelay;
  /**
   * Restarts the api as a deploy does: its http server and runtime close (open streams drop), then a new api
   * runtime serves on the same port. `pipeline.http` still drives the first runtime: use `url` afterwards.
   */
  restartApi(): Promise<void>;
  /** Seeds a user with this role and logs them in (default profile) in a new home; answers the home. */
  loginAs(role: Role, username?: string): Promise<string>;
  /** Posts a JSON webhook to a source (as a sender would) and answers the new event's id. */
  ingest(source: string, body?: object): Promise<string>;
  close(): Promise<void>;
}

export const PASSWORD = 'correct-horse-battery-9';

/** `worker`: settings over the harness's fast ones (FAST_WORKER_ENV), for a test that counts attempts. */
export async function startCliRelay(api: Env = {}, worker: Env = {}): Promise<CliRelay> {
  const build = buildRelay();
  const apiEnv = { ...FAST_HASH_ENV, SESSION_SECRET: 'cli-test', ...api };
  const pipeline = await startPipeline({ api: apiEnv, worker });
  const served = await listen(pipeline.api.app);
  const homes: string[] = [];
  const spawned: SpawnedRelay[] = [];
  // After restartApi: the runtime and server now answering on the relay's port.
  let restarted: { runtime: ApiRuntime; server: { close(): Promise<void> } } | undefined;
  const relay: CliRelay = {
    pipeline,
    url: served.url,
    bin: build.bin,
    newHome() {
      const home = mkdtempSync(path.join(tmpdir(), 'relay-cli-home-'));
      homes.push(home);
      return home;
    },
    run: (home, args, options) => runBinary(build.bin, args, home, options),
    spawn(home, args, env) {
      const child = spawnBinary(build.bin, args, home, env);
      spawned.push(child);
      return child;
    },
    async restartApi() {
      const port = Number(new URL(served.url).port);
      if (restarted) {
        await restarted.server.close();
        await restarted.runtime.close();
      } else {
        await served.close();
        await pipeline.api.close();
      }
      const runtime = startApiReplica(pipeline, apiEnv);
      await runtime.start();
      restarted = { runtime, server: await serveOn(runtime.app, port) };
    },
    async loginAs(role, username = `${role}-${Math.random().toString(36).slice(2, 8)}`) {
      await seedUser(pipeline, { username, role, password: PASSWORD });
      const home = relay.newHome();
      const login = await relay.run(home, ['login', '--url', served.url, '--username', username, '--password-stdin'], {
        input: `${PASSWORD}\n`,
      });
      if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
      return home;
    },
    async ingest(source, body = { n: randomUUID() }) {
      const answer = await pipeline.http
        .post(`/${source}`)
        .set('content-type', 'application/json')
        .send(body)
        .expect(202);
      return answer.body.id as string;
    },
    async close() {
      for (const child of spawned) child.kill();
      await served.close();
      if (restarted) {
        await restarted.server.close();
        await restarted.runtime.close();
      }
      await pipeline.close();
      for (const dir of [...homes, build.dir]) rmSync(dir, { recursive: true, force: true });
    },
  };
  return relay;
}
