// The compose test's delivery target, run in its own container: it records every request in arrival order (the
// event id from X-Relay-Event-Id and the sender's address, i.e. which worker container sent it) before answering
// 200 after 200 ms, so a worker killed mid-delivery leaves a recorded first copy behind. GET /records lists them.
import http from 'node:http';

const records = [];

http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/records') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(records));
      return;
    }
    records.push({ id: req.headers['x-relay-event-id'], from: req.socket.remoteAddress.replace(/^::ffff:/, '') });
    req.resume();
    setTimeout(() => res.end('ok'), 200);
  })
  .listen(8080, () => console.log('receiver listening on 8080'));
