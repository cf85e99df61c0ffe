// `pnpm relay-worker retention dry-run [--json]`: what the next retention run would delete, per
// organization, with the worker's settings (the same environment as the worker); deletes nothing.
import { createDatabase, createRetentionRepository } from '@relay/db';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { parseWorkerConfig } from '../config';
import { partitionRetirementOf } from '../retention/partition-retention';
import { formatDryRun, retentionDryRun } from '../retention/retention-dry-run';
import { retentionSettings } from '../retention/retention-plan';

const usage = 'usage: relay-worker retention dry-run [--json]';

async function run(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.join(' ') !== 'retention dry-run') throw new Error(usage);
  const config = parseWorkerConfig(process.env);
  const settings = retentionSettings(config);
  const db = createDatabase({ url: config.DATABASE_URL, poolSize: 2 });
  try {
    const partitions = partitionRetirementOf(db.pool, pino({ level: 'silent' }));
    const report = await retentionDryRun(createRetentionRepository(db.pool), settings, new Date(), partitions);
    console.log(values.json ? JSON.stringify(report, null, 2) : formatDryRun(report, settings));
  } finally {
    await db.close();
  }
}

run().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
