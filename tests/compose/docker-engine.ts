import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Debian's docker.io and docker-compose live in /usr/bin and /usr/sbin; the machine's /usr/local/bin/docker (a newer
// client without the compose plugin) must not shadow them.
export const DOCKER_PATH = `/usr/bin:/usr/sbin:/bin:/sbin:${process.env.PATH ?? ''}`;
// Outside the clone, so that the next run (a fresh clone in CI) reuses the built layers.
const DATA_ROOT = '/var/lib/relay-test-docker';
const PID_FILE = '/var/run/relay-test-dockerd.pid';
const LOG_FILE = '/var/lib/relay-test-dockerd.log';
const LOCK_FILE = '/var/lib/relay-test-docker.lock';
const START_LIMIT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const env = () => ({ ...process.env, PATH: DOCKER_PATH });
const installed = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { env: env() }).status === 0;
const engineAnswers = () =>
  spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { env: env(), timeout: 30_000 }).status === 0;
const tail = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').slice(-15).join('\n') : '(no log)';

export interface Engine {
  /** Whether this run started the engine (and so stops it). */
  started: boolean;
  stop(): Promise<void>;
}

/**
 * One compose test at a time on a machine: they share the engine (one run must not stop it under another) and the
 * project name. `flock` holds the lock for as long as its stdin is open, so a run that dies releases it.
 */
export async function holdMachineLock(log: (line: string) => void): Promise<() => void> {
  mkdirSync(path.dirname(LOCK_FILE), { recursive: true });
  const holder = spawn('flock', ['-x', LOCK_FILE, '-c', 'echo held; exec cat'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = setTimeout(() => log(`waiting for another compose test run to finish (${LOCK_FILE})`), 2_000);
  try {
    const [chunk] = (await Promise.race([once(holder.stdout, 'data'), once(holder, 'exit')])) as [unknown];
    if (typeof chunk === 'number' || chunk === null) throw new Error(`flock exited (${String(chunk)})`);
  } finally {
    clearTimeout(waiting);
  }
  return () => holder.stdin.end();
}

/** The Docker engine that answers on this machine, or one started here with its data root outside the clone. */
export async function startEngine(log: (line: string) => void): Promise<Engine> {
  for (const command of ['docker', 'docker-compose']) {
    if (!installed(command)) {
      throw new Error(
        `${command} is not installed: the compose suite needs Debian's docker.io and docker-compose ` +
          '(apt-get install -y docker.io docker-compose debootstrap; .ci/run installs them)',
      );
    }
  }
  if (engineAnswers()) return { started: false, stop: async () => {} };
  if (!installed('dockerd')) {
    throw new Error('no Docker engine answers and dockerd is not installed (apt-get install -y docker.io)');
  }
  if (process.getuid?.() !== 0) throw new Error('no Docker engine answers, and only root can start dockerd');

  log(`starting dockerd (data root ${DATA_ROOT}, log ${LOG_FILE})`);
  mkdirSync(DATA_ROOT, { recursive: true });
  const out = openSync(LOG_FILE, 'a');
  const dockerd = spawn('dockerd', ['--data-root', DATA_ROOT, '--pidfile', PID_FILE], {
    detached: true,
    stdio: ['ignore', out, out],
    env: env(),
  });
  closeSync(out);
  let exit: string | undefined;
  dockerd.on('exit', (code, signal) => (exit = `exited with ${code ?? signal}`));
  dockerd.on('error', (error) => (exit = error.message));
  const deadline = Date.now() + START_LIMIT_MS;
  while (!engineAnswers()) {
    if (exit !== undefined || Date.now() > deadline) {
      if (exit === undefined) await stopProcess(dockerd);
      throw new Error(
        `dockerd could not start on this machine (${exit ?? `no answer within ${START_LIMIT_MS / 1000} s`}), ` +
          `so the compose suite cannot run. The end of ${LOG_FILE}:\n${tail(LOG_FILE)}`,
      );
    }
    await sleep(250);
  }
  return { started: true, stop: () => stopProcess(dockerd) };
}

/** SIGTERM (dockerd stops its containerd and what still runs), then SIGKILL if it lingers. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  process.kill(child.pid, 'SIGTERM');
  const late = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 60_000);
  await exited;
  clearTimeout(late);
}
