// The durable-ingest floor: the least work that still makes an ingest durable and queued. Express
// reads the raw body; concurrent requests share one multi-row INSERT into a table shaped like
// `events` without its search index (group commit, the relay's batch settings), then one BullMQ
// addBulk; each request is answered 202 after both. No host lookup, no source rules, no JSON check.
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import express from 'express';
import { Redis } from 'ioredis';
import pg from 'pg';

const { DATABASE_URL, REDIS_URL, QUEUE_PREFIX, ORG_ID } = process.env;
const MAX_BATCH = Number(process.env.INGEST_BATCH_MAX ?? 100);
const WAIT_MS = Number(process.env.INGEST_BATCH_WAIT_MS ?? 2);

const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue('floor-delivery', { connection, prefix: QUEUE_PREFIX });

const INSERT = `
INSERT INTO floor_events (id, organization_id, source, body, headers, next_attempt_at, status, attempt_count,
  created_at, updated_at)
SELECT u.id, $2::uuid, u.source, u.body, u.headers, now() AT TIME ZONE 'UTC', 'queued', 0,
  now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
FROM unnest($1::uuid[], $3::text[], $4::bytea[], $5::jsonb[]) AS u(id, source, body, headers)`;

// UUIDv7 like the relay's ids (time-ordered: primary-key inserts land at the index's right edge).
function uuidv7() {
  const b = randomBytes(16);
  b.writeUIntBE(Date.now(), 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

let batch = [];
let timer;
async function flush() {
  clearTimeout(timer);
  timer = undefined;
  const items = batch;
  batch = [];
  try {
    await pool.query(INSERT, [
      items.map((i) => i.id),
      ORG_ID,
      items.map((i) => i.source),
      items.map((i) => i.body),
      items.map((i) => JSON.stringify(i.headers)),
    ]);
    await queue.addBulk(
      items.map((i) => ({
        name: 'deliver',
        data: { orgId: ORG_ID, eventId: i.id },
        opts: { jobId: i.id, removeOnComplete: true, removeOnFail: true },
      })),
    );
    for (const i of items) i.done();
  } catch (err) {
    for (const i of items) i.fail(err);
  }
}

const app = express();
app.use(express.raw({ type: () => true, limit: '1mb' }));
app.post('/{*path}', (req, res) => {
  const item = {
    id: uuidv7(),
    source: req.path.slice(1) || 'default',
    body: req.body,
    headers: {
      'content-type': req.headers['content-type'] ?? '',
      'x-github-event': req.headers['x-github-event'] ?? '',
    },
    done: () => res.status(202).json({ id: item.id, status: 'queued' }),
    fail: () => res.status(503).end(),
  };
  batch.push(item);
  if (batch.length >= MAX_BATCH) void flush();
  else if (!timer) timer = setTimeout(flush, WAIT_MS);
});
const server = app.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('SIGTERM', () => {
  server.close();
  void Promise.all([pool.end(), queue.close()]).then(() => process.exit(0));
});
