// Writes docs/images/tui.png, the README's picture of `relay tui`: starts a relay (api + worker on a fresh
// database) with a few delivered, failed and queued events, runs the built `relay tui` in tmux at 100×30, captures
// the screen with its colours (capture-pane -e) and renders that as HTML in Debian's chromium.
// Usage: node scripts/tui-screenshot.mjs (needs Postgres, Redis, tmux and /usr/bin/chromium).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { admin, deleteKeys, freshDatabase, REDIS_URL } from '../bench/lib/database.mjs';
import { freePort, startNode, stop, waitForHttp } from '../bench/lib/processes.mjs';
import { terminalPage } from './lib/ansi-html.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const output = path.join(root, 'docs', 'images', 'tui.png');
const PASSWORD = 'screenshot-password-123';
const SOCKET = `relay-tui-shot-${process.pid}`;
const tmux = (...args) =>
  execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const dbName = `relay_tui_shot_${randomBytes(4).toString('hex')}`;
const prefix = `tuishot${randomBytes(3).toString('hex')}`;
const home = mkdtempSync(path.join(tmpdir(), 'relay-tui-shot-'));
let api;
let worker;
let browser;
// The delivery targets: /ok answers 200 after a few ms, /down 503, /slow holds the request (the event stays queued).
const target = http.createServer((req, res) => {
  req.resume();
  if (req.url === '/slow') return setTimeout(() => res.writeHead(200).end(), 60_000).unref();
  setTimeout(() => res.writeHead(req.url === '/ok' ? 200 : 503).end(), 5 + Math.random() * 40);
});
try {
  console.log('building (api, worker, cli)');
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const databaseUrl = await freshDatabase(root, dbName);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    TARGET_ALLOW_PRIVATE: 'true',
  };
  api = startNode(path.join(root, 'apps/api/dist/main.mjs'), {
    ...common,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: base,
    SESSION_SECRET: 'tui-screenshot-session-secret',
    INITIAL_ADMIN_USERNAME: 'admin',
    INITIAL_ADMIN_PASSWORD: PASSWORD,
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_TIME_COST: '1',
  });
  worker = startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), {
    ...common,
    DELIVERY_MAX_ATTEMPTS: '3',
    DELIVERY_BACKOFF_BASE_MS: '50',
    DELIVERY_BACKOFF_MAX_MS: '200',
    DELIVERY_TIMEOUT_MS: '90000',
  });
  await waitForHttp(`${base}/ready`, 30_000);
  await new Promise((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetBase = `http://127.0.0.1:${target.address().port}`;

  const bin = path.join(root, 'apps/cli/dist/relay.mjs');
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  const login = spawnSync(process.execPath, [bin, 'login', '--url', base, '--username', 'admin', '--password-stdin'], {
    env,
    input: PASSWORD,
    encoding: 'utf8',
  });
  if (login.status !== 0) throw new Error(`relay login failed: ${login.stderr}`);
  const config = JSON.parse(readFileSync(path.join(home, '.config/webhook-relay/config.json'), 'utf8'));
  const headers = { authorization: `Bearer ${config.profiles.default.token}`, 'content-type': 'application/json' };
  const call = async (method, url, body) => {
    const res = await fetch(`${base}${url}`, { method, headers, body: body && JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  for (const [source, route] of [
    ['github', 'ok'],
    ['stripe', 'ok'],
    ['shopify', 'down'],
    ['linear', 'slow'],
  ])
    await call('POST', '/rules', { source, target_url: `${targetBase}/${route}` });
  const ingest = async (source, body) => {
    const res = await fetch(`${base}/${source}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 202) throw new Error(`ingest ${source}: ${res.status} ${await res.text()}`);
  };
  const sources = ['stripe', 'github', 'shopify', 'github', 'stripe', 'github', 'github', 'shopify', 'stripe'];
  const plan = [...sources, ...sources];
  for (const [n, source] of plan.entries()) {
    await ingest(source, { id: `evt_${1000 + n}`, type: `${source}.event`, repository: { full_name: 'octo/hello' } });
    await sleep(250);
  }
  // Wait until nothing but the held ones is queued, then add two that stay queued.
  for (let i = 0; i < 100; i++) {
    const queued = await call('GET', '/events?status=queued&per_page=1');
    if (queued.total === 0) break;
    await sleep(200);
  }
  // One failure already looked at: the list shows it as failed/ack.
  const [failed] = (await call('GET', '/events?status=failed&per_page=50')).events.reverse();
  if (failed) await call('POST', `/events/${failed.id}/ack`);
  await ingest('linear', { action: 'create', type: 'Issue' });
  await ingest('github', { ref: 'refs/heads/main', repository: { full_name: 'octo/hello' } });

  tmux(
    'new-session',
    '-d',
    '-x',
    '100',
    '-y',
    '30',
    '-s',
    'shot',
    `env -u NO_COLOR HOME=${home} XDG_CONFIG_HOME=${env.XDG_CONFIG_HOME} TERM=xterm-256color ` +
      `${process.execPath} ${bin} tui`,
  );
  await sleep(2500);
  tmux('send-keys', '-t', 'shot', 'j', 'j', 'j', 'j');
  await sleep(1000);
  const screen = tmux('capture-pane', '-e', '-p', '-t', 'shot');
  tmux('send-keys', '-t', 'shot', 'q');

  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-sync'],
  });
  const page = await browser.newPage({ deviceScaleFactor: 2 });
  await page.setContent(terminalPage(screen.replace(/\n+$/, ''), { title: 'relay tui' }));
  mkdirSync(path.dirname(output), { recursive: true });
  await page.locator('.window').screenshot({ path: output });
  console.log(`wrote ${path.relative(root, output)}`);
} finally {
  await browser?.close();
  try {
    tmux('kill-server');
  } catch {
    // not started, or already gone
  }
  target.close();
  await stop(worker);
  await stop(api);
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => {});
  await deleteKeys(prefix).catch(() => {});
  rmSync(home, { recursive: true, force: true });
}
