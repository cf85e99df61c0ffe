// Load generators: autocannon for closed-loop saturation, and an open-loop generator that sends at
// a fixed rate whatever the server's latency (so a slow server cannot slow the offered load).
import http from 'node:http';
import autocannon from 'autocannon';

export function saturate({ url, body, connections = 64, durationS, amount }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
        body,
        // autocannon refuses more connections than requests: a top-up of a nearly full backlog (a slow machine
        // accepts fewer webhooks in the timed phase) may ask for fewer than `connections`.
        connections: amount ? Math.min(connections, amount) : connections,
        ...(amount ? { amount } : { duration: durationS }),
      },
      (err, result) => {
        if (err) return reject(err);
        const seconds = result.duration;
        resolve({
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          seconds,
          rps: result['2xx'] / seconds,
        });
      },
    );
  });
}

const clock = () => performance.timeOrigin + performance.now();

/** Sends `rate` requests per second for `durationS`; resolves with each request's timings and id. */
export async function openLoop({ port, path, body, rate, durationS }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const samples = [];
  const failures = [];
  const total = Math.round(rate * durationS);
  const started = clock();
  let sent = 0;
  const inflight = new Set();
  const fire = () => {
    const t0 = clock();
    const done = new Promise((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            const t1 = clock();
            if (res.statusCode === 202) samples.push({ id: JSON.parse(text).id, t0, t1 });
            else failures.push(res.statusCode);
            resolve();
          });
        },
      );
      req.on('error', (err) => {
        failures.push(err.code ?? err.message);
        resolve();
      });
      req.end(body);
    });
    inflight.add(done);
    void done.then(() => inflight.delete(done));
  };
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((clock() - started) / 1000) * rate));
      while (sent < due) {
        fire();
        sent++;
      }
      if (sent >= total) return resolve();
      setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all([...inflight]);
  agent.destroy();
  return { samples, failures, offered: total, seconds: (clock() - started) / 1000 };
}
