// Offline migrations through Prisma's own WebAssembly schema engine.
// The Prisma CLI downloads a native engine on every command; this script does the same work with the
// wasm build and keeps `_prisma_migrations` exactly as `prisma migrate deploy` would, so both stay valid.
//
//   node scripts/db.mjs migrate        apply pending migrations in prisma/migrations
//   node scripts/db.mjs diff <name>    write prisma/migrations/<timestamp>_<name>/migration.sql from the schema drift
//   node scripts/db.mjs check          exit 1 when schema.prisma and the migrations disagree (drift)
import { readFile, readdir, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitSqlStatements } from './lib/sql-statements.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const schemaPath = path.join(root, 'prisma/schema.prisma');
const migrationsDir = path.join(root, 'prisma/migrations');
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const filters = { externalTables: [], externalEnums: [] };

// The engine describes a database through catalog queries that return Postgres' internal "char" type,
// which @prisma/adapter-pg 7.10 cannot map; reported as text it reads fine. Only this tool is patched.
function reportCharColumnsAsText(pg) {
  for (const proto of [pg.Client.prototype, pg.Pool.prototype]) {
    const query = proto.query;
    proto.query = function patchedQuery(...args) {
      const result = query.apply(this, args);
      if (!result || typeof result.then !== 'function') return result;
      return result.then((res) => {
        for (const field of res?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
        return res;
      });
    };
  }
}

// The adapter runs a migration by splitting it at every `;` and sending each piece to any pooled connection.
// That broke DO blocks, function bodies and strings with a `;` in them (partitioned tables need those), and a
// `SET lock_timeout` or an explicit BEGIN/COMMIT could land on another connection than the statements after it.
// This runs the statements that sql-statements.mjs finds, in order, on one connection, still outside any
// transaction the runner would open (so CREATE INDEX CONCURRENTLY works). The adapter's class is not exported:
// its prototype is patched through the first adapter the factory makes (the shadow database's shares it).
function splitStatementsWisely(adapter) {
  const proto = Object.getPrototypeOf(adapter);
  if (proto.executeScript.patched) return adapter;
  proto.executeScript = async function executeScript(script) {
    const pool = this.client;
    const conn = typeof pool.totalCount === 'number' ? await pool.connect() : pool;
    let failure;
    try {
      for (const statement of splitSqlStatements(script)) await conn.query(statement);
    } catch (error) {
      failure = error;
      this.onError(error);
    } finally {
      // A connection left in a failed transaction or with session settings is not given back to the pool.
      if (conn !== pool) conn.release(failure ?? true);
    }
  };
  proto.executeScript.patched = true;
  return adapter;
}

// Diffing from migrations replays them into the engine's own connection, so diff and check run
// against a throw-away shadow database, never the real one.
async function withShadowDatabase(fn) {
  const pg = require('pg');
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const name = `relay_shadow_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

async function loadEngine(connectionString) {
  const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bg = await import(bgPath);
  const bytes = await readFile(path.join(path.dirname(bgPath), 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  const { PrismaPg } = require('@prisma/adapter-pg');
  if (!loadEngine.patched) reportCharColumnsAsText(createRequire(require.resolve('@prisma/adapter-pg'))('pg'));
  loadEngine.patched = true;
  const { bindMigrationAwareSqlAdapterFactory } = require('@prisma/driver-adapter-utils');
  const schema = await readFile(schemaPath, 'utf8');
  // The shadow database is dropped under the engine's open connections: those errors are expected.
  const ignore = () => {};
  const factory = new PrismaPg({ connectionString }, { onPoolError: ignore, onConnectionError: ignore });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => splitStatementsWisely(await connect());
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  const engine = await bg.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, () => {}, adapter);
  return { engine, schema, close: async () => engine.free() };
}

async function migrationsList() {
  const entries = (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrationDirectories = await Promise.all(
    entries.map(async (name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
      },
    })),
  );
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  const lock = await readFile(lockPath, 'utf8').catch(() => null);
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: lock },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

async function diffSql(engine, schema) {
  const list = await migrationsList();
  const from = list.migrationDirectories.length ? { tag: 'migrations', ...list } : { tag: 'empty' };
  const result = await engine.diff({
    from,
    to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
    script: true,
    exitCode: null,
    shadowDatabaseUrl: null,
    filters,
  });
  return (result.stdout ?? '').trim();
}

async function shadowDiff(url) {
  const { engine, schema, close } = await loadEngine(url);
  try {
    return await diffSql(engine, schema);
  } finally {
    await close();
  }
}

const isEmptyDiff = (sql) => sql === '' || /^-- This is an empty migration\.?$/.test(sql);

async function main() {
  const [command, name] = process.argv.slice(2);
  if (command === 'migrate') {
    const { engine, close } = await loadEngine(databaseUrl);
    const out = await engine.applyMigrations({ migrationsList: await migrationsList(), filters }).finally(close);
    const applied = out.appliedMigrationNames ?? [];
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } else if (command === 'diff') {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: db.mjs diff <snake_case_name>');
    const sql = await withShadowDatabase(shadowDiff);
    if (isEmptyDiff(sql)) return console.log('no schema changes');
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(migrationsDir, `${stamp}_${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'migration.sql'), `${sql}\n`);
    await writeFile(path.join(migrationsDir, 'migration_lock.toml'), 'provider = "postgresql"\n');
    console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
  } else if (command === 'check') {
    const sql = await withShadowDatabase(shadowDiff);
    if (!isEmptyDiff(sql)) {
      console.error(`schema.prisma and prisma/migrations disagree; the missing migration is:\n${sql}`);
      process.exitCode = 1;
    } else console.log('no drift');
  } else {
    throw new Error('usage: db.mjs migrate | diff <name> | check');
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
