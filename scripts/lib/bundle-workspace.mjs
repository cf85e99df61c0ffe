// esbuild plugin for the app bundles: workspace packages (@relay/*) are TypeScript sources, so they are
// bundled from packages/<name>/src/index.ts even though `packages: 'external'` leaves node_modules out.
import path from 'node:path';

export function bundleWorkspace(root) {
  return {
    name: 'bundle-workspace',
    setup(b) {
      b.onResolve({ filter: /^@relay\// }, (args) => ({
        path: path.join(root, 'packages', args.path.slice('@relay/'.length), 'src/index.ts'),
      }));
    },
  };
}
