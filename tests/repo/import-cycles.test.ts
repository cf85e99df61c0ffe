import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// `pnpm circular` (dpdm, settings in dpdm.config.ts) must count type-only imports: a circle of
// `import type` still ties the modules together (35 files of the api were one loop while it did not).
// The check itself runs here, as `pnpm test` runs it, on files planted in a temporary folder.
describe('the import-cycle check', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'relay-cycles-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const plant = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    // Files named on the command line replace the configured ones; every other setting is the check's own.
    return spawnSync('pnpm', ['--silent', 'circular', ...Object.keys(files).map((name) => path.join(dir, name))], {
      cwd: ROOT,
      encoding: 'utf8',
    });
  };

  it('fails on a circle of type-only imports, naming its files', () => {
    const run = plant({
      'order.ts': "import type { Customer } from './customer';\nexport interface Order { customer: Customer }\n",
      'customer.ts': "import type { Order } from './order';\nexport interface Customer { orders: Order[] }\n",
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/\d+\) \S*\/(order|customer)\.ts -> \S*\/(customer|order)\.ts/);
  });

  it('passes when the same types import one way only', () => {
    const run = plant({
      'order.ts': "import type { Customer } from './customer';\nexport interface Order { customer: Customer }\n",
      'customer.ts': 'export interface Customer { name: string }\n',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('no circular dependency was found');
  });
});
