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
});
