// The benchmark's delivery target: answers 200 to everything and records, per event id, when it
// first arrived and how often. Runs as its own process; the parent talks to it over IPC.
// HANG=1 makes it a hanging target instead: it reads each request and never answers.
// KEY_HEADER=webhook-id counts by that header instead (the fan-out bench: a destination delivery has its own
// webhook-id), keeping each key's x-relay-event-id beside it.
import http from 'node:http';

const hang = process.env.HANG === '1';
const keyHeader = process.env.KEY_HEADER ?? 'x-relay-event-id';

const receipts = new Map();
let total = 0;
const now = () => performance.timeOrigin + performance.now();

const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const id = req.headers[keyHeader];
    if (typeof id === 'string') {
      total++;
      const seen = receipts.get(id);
      if (seen) seen[1]++;
      else receipts.set(id, [now(), 1, req.headers['x-relay-event-id']]);
    }
    if (!hang) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 65_000;

process.on('message', (msg) => {
  if (msg.type === 'stats') process.send({ type: 'stats', total, unique: receipts.size });
  if (msg.type === 'receipts')
    process.send({
      type: 'receipts',
      receipts: [...receipts.entries()].map(([id, [t, n, eventId]]) => [id, t, n, eventId]),
    });
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
