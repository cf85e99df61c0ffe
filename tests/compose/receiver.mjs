// The compose test's delivery target, run in its own container: it records every request in arrival order (the
// event id from X-Relay-Event-Id and the sender's address, i.e. which worker container sent it) before answering
// 200 after 200 ms, so a worker killed mid-delivery leaves a recorded first copy behind. GET /records lists them.
// POST /hold keeps every answer back until POST /release (GET /held names the senders waiting), so the test kills a
// worker while it certainly has a delivery in flight: a kill timed by polling alone can fall between deliveries.
import http from 'node:http';

const records = [];
let held; // the answers kept back while a hold lasts, or undefined
let holdTimer;
// A hold ends by itself before the relay's 15 s delivery timeout, so a test that dies mid-hold times out nothing.
const HOLD_LIMIT_MS = 12_000;

function release() {
  const answers = held ?? [];
  held = undefined;
  clearTimeout(holdTimer);
  for (const answer of answers) answer.res.end('ok');
  return answers.length;
}

function json(res, body) {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/records') return json(res, records);
    if (req.method === 'POST' && req.url === '/hold') {
      if (!held) {
        held = [];
        holdTimer = setTimeout(release, HOLD_LIMIT_MS);
      }
      return json(res, { holding: true });
    }
    if (req.method === 'GET' && req.url === '/held')
      return json(
        res,
        (held ?? []).map((answer) => answer.from),
      );
    if (req.method === 'POST' && req.url === '/release') return json(res, { released: release() });
    const from = req.socket.remoteAddress.replace(/^::ffff:/, '');
    records.push({ id: req.headers['x-relay-event-id'], from });
    req.resume();
    // A killed sender's socket resets: its held answer is dropped, not an error that ends the receiver.
    res.on('error', () => undefined);
    if (held) held.push({ from, res });
    else setTimeout(() => res.end('ok'), 200);
  })
  .listen(8080, () => console.log('receiver listening on 8080'));
