// Baseline: the cheapest useful Express 5 ingest, JSON parsed and answered 202, nothing stored.
import express from 'express';

const app = express();
app.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }));
app.post('/{*path}', (_req, res) => {
  res.status(202).json({ id: '00000000-0000-7000-8000-000000000000', status: 'queued' });
});
const server = app.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
