import { spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DOCKER_PATH } from './docker-engine';

export const root = path.resolve(__dirname, '../..');
const FILES = ['-f', 'docker-compose.yml', '-f', 'tests/compose/docker-compose.local.yml'];

/** Runs a command to its end; its output goes to `logFile` too. Throws with the output's end when it fails. */
export function run(command: string, args: string[], options: { env: NodeJS.ProcessEnv; logFile: string }) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(options.logFile, { flags: 'a' });
    log.write(`\n$ ${command} ${args.join(' ')}\n`);
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
      log.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      log.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      log.end();
      if (code === 0) resolve(stdout.trim());
      else {
        const end = output.trim().split('\n').slice(-25).join('\n');
        reject(new Error(`${command} ${args.join(' ')} exited with ${code} (log: ${options.logFile}):\n${end}`));
      }
    });
  });
}

// Straight from its file: the package's index loads the core, whose CEL library this suite's jest cannot require.
export { freePort } from '../../packages/test-support/src/spare-port';

/** One compose project of the test: its own name, settings and log; `.env` of the checkout is not read. */
export class ComposeProject {
  private readonly env: NodeJS.ProcessEnv;
  private readonly emptyEnvFile: string;

  constructor(
    readonly name: string,
    settings: Record<string, string>,
    readonly logFile: string,
  ) {
    this.emptyEnvFile = `${logFile}.env`;
    writeFileSync(this.emptyEnvFile, '');
    // Only what compose needs and the test's settings: nothing of the caller's environment reaches the containers.
    this.env = { PATH: DOCKER_PATH, HOME: process.env.HOME ?? '/root', ...settings };
  }

  compose(...args: string[]): Promise<string> {
    return run('docker-compose', ['-p', this.name, '--env-file', this.emptyEnvFile, ...FILES, ...args], {
      env: this.env,
      logFile: this.logFile,
    });
  }

  docker(...args: string[]): Promise<string> {
    return run('docker', args, { env: this.env, logFile: this.logFile });
  }

  /** The running containers of one service. */
  async running(service: string): Promise<string[]> {
    const ids = await this.docker(
      'ps',
      '--quiet',
      '--no-trunc',
      '--filter',
      `label=com.docker.compose.project=${this.name}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
    );
    return ids.split('\n').filter(Boolean);
  }

  /** Every container of one service, stopped ones included. */
  async all(service: string): Promise<string[]> {
    const ids = await this.docker(
      'ps',
      '--all',
      '--quiet',
      '--no-trunc',
      '--filter',
      `label=com.docker.compose.project=${this.name}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
    );
    return ids.split('\n').filter(Boolean);
  }

  async inspect(id: string, format: string): Promise<string> {
    return this.docker('inspect', '--format', format, id);
  }

  /** The container's address on the project's network: the sender address a target sees. */
  addressOf(id: string): Promise<string> {
    return this.inspect(id, '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}');
  }

  /** An HTTP GET from inside a container (its own loopback), with Node: status and body. */
  async fetchInside(id: string, url: string, headers: Record<string, string> = {}) {
    const script =
      'fetch(process.argv[1], { headers: JSON.parse(process.argv[2]) })' +
      '.then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })))';
    const output = await this.docker('exec', id, 'node', '-e', script, url, JSON.stringify(headers));
    return JSON.parse(output) as { status: number; body: string };
  }
}
