import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';

export interface TestUser {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  stop(): Promise<void>;
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** A real oidc-provider in a child process on a loopback port, with confidential clients and these users. */
export async function startTestProvider(
  options:
    | { redirectUri: string; clientId: string; clientSecret: string; users: Record<string, TestUser> }
    | { clients: TestClient[]; users: Record<string, TestUser> },
): Promise<TestProvider> {
  const script = path.join(__dirname, 'fixtures', 'oidc-provider.mjs');
  const child: ChildProcess = spawn(process.execPath, [script, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
    child.once('exit', (code) => reject(new Error(`test provider exited (${code}): ${stderr}`)));
  });
  return {
    issuer,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A loopback port reserved before the app exists (its URL goes into the app's settings), then served by it. */
export async function reservePort(): Promise<{ url: string; serve(app: Express): void; close(): Promise<void> }> {
  let app: Express | undefined;
  const server = http.createServer((req, res) => (app ? app(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (served) => void (app = served),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A browser's cookies, per origin (paths ignored: the tests' servers do not share an origin). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: string): string {
    return [...(this.byOrigin.get(new URL(url).origin) ?? new Map<string, string>())]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  store(url: string, response: Response): void {
    const cookies = this.byOrigin.get(new URL(url).origin) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(line);
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.byOrigin.set(new URL(url).origin, cookies);
  }

  /** One GET with this jar's cookies, redirects not followed. */
  async get(url: string): Promise<Response> {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: this.header(url) } });
    this.store(url, response);
    return response;
  }

  /**
   * Follows redirects from `url` until one leads to a URL `stop` accepts (answered without fetching it), or a
   * response that is not a redirect. Each hop's URL may be rewritten by `edit` first (a tampering test).
   */
  async follow(
    url: string,
    stop: (url: URL) => boolean,
    edit: (url: URL) => URL = (u) => u,
  ): Promise<{ url: URL; response?: Response }> {
    let next = edit(new URL(url));
    for (let hop = 0; hop < 20; hop++) {
      if (stop(next)) return { url: next };
      const response = await this.get(next.href);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || !location) return { url: next, response };
      next = edit(new URL(location, next));
    }
    throw new Error('too many redirects');
  }
}
