import { createHttpServer } from './http-server';

describe('createHttpServer', () => {
  it('applies the limits, keeping the headers time-out within the request time-out as Node requires', () => {
    const limits = { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 4_000, connectionsCheckIntervalMs: 500 };
    const server = createHttpServer(() => {}, { ...limits, headersTimeoutMs: 20_000 });
    expect(server).toMatchObject({ requestTimeout: 10_000, headersTimeout: 10_000, keepAliveTimeout: 4_000 });
    expect(createHttpServer(() => {}, { ...limits, headersTimeoutMs: 3_000 }).headersTimeout).toBe(3_000);
  });
});
