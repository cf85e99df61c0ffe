import { BASE_DATABASE_URL } from '@relay/test-support';
import { createMigrationProject, SCHEMA_HEADER, type MigrationProject } from './migration-project';

// The drift check (`db.mjs check`) with what partitioned history needs (docs/partitioning.md): a table partitioned
// by range with the partition column in its primary key, partitions made both ways (PARTITION OF, and LIKE then
// ATTACH, as the maintenance job will), and a composite foreign key into it. Partitions are not in schema.prisma;
// Prisma's schema engine leaves them out of the comparison, which this test holds it to.
const MODELS = `
model Probe {
  id          String       @db.Uuid
  partitionAt DateTime     @map("partition_at")
  note        String
  children    ProbeChild[]

  @@id([id, partitionAt])
  @@index([note])
  @@map("probe")
}

model ProbeChild {
  id          String   @id @db.Uuid
  probeId     String   @map("probe_id") @db.Uuid
  partitionAt DateTime @map("partition_at")

  probe Probe @relation(fields: [probeId, partitionAt], references: [id, partitionAt], onDelete: Cascade, onUpdate: Cascade)

  @@index([probeId, partitionAt])
  @@map("probe_child")
}
`;

const MIGRATION = `CREATE TABLE "probe" ("id" UUID NOT NULL, "partition_at" TIMESTAMP(3) NOT NULL, "note" TEXT NOT NULL,
  CONSTRAINT "probe_pkey" PRIMARY KEY ("id", "partition_at")) PARTITION BY RANGE ("partition_at");
CREATE INDEX "probe_note_idx" ON "probe"("note");
CREATE TABLE "probe_p20261126" PARTITION OF "probe"
  FOR VALUES FROM ('2026-11-26 00:00:00') TO ('2026-11-27 00:00:00');
CREATE TABLE "probe_p20261127" (LIKE "probe" INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE "probe" ATTACH PARTITION "probe_p20261127"
  FOR VALUES FROM ('2026-11-27 00:00:00') TO ('2026-11-28 00:00:00');
CREATE TABLE "probe_child" ("id" UUID NOT NULL, "probe_id" UUID NOT NULL, "partition_at" TIMESTAMP(3) NOT NULL,
  CONSTRAINT "probe_child_pkey" PRIMARY KEY ("id"));
CREATE INDEX "probe_child_probe_id_partition_at_idx" ON "probe_child"("probe_id", "partition_at");
ALTER TABLE "probe_child" ADD CONSTRAINT "probe_child_probe_id_partition_at_fkey"
  FOREIGN KEY ("probe_id", "partition_at") REFERENCES "probe"("id", "partition_at") ON DELETE CASCADE ON UPDATE CASCADE;
`;

describe('scripts/db.mjs check with partitioned tables', () => {
  let project: MigrationProject;

  beforeAll(async () => {
    project = await createMigrationProject(SCHEMA_HEADER + MODELS, MIGRATION);
  });

  afterAll(() => project?.remove());

  it('sees no drift: partitions are not in the Prisma schema and need not be', async () => {
    const { stdout } = await project.db(['check'], BASE_DATABASE_URL);
    expect(stdout).toContain('no drift');
  }, 120_000);

  it('still finds a real difference on the partitioned table', async () => {
    await project.writeSchema(SCHEMA_HEADER + MODELS.replace('@@index([note])', '@@index([note])\n  @@index([id])'));
    const failure = await project.db(['check'], BASE_DATABASE_URL).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/CREATE INDEX "probe_id_idx" ON "probe"\("id"\)/);
  }, 120_000);
});
