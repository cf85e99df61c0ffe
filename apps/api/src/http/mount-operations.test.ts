import type { Request, Response } from 'express';
import { API_OPERATIONS } from '../composition/catalog';
import type { ApiServices } from '../composition/services';
import { INGEST_ROUTE } from '../modules/ingest/ingest.operations';
import { operationHandler } from './mount-operations';

const options = { validateResponses: false };
// Only what a test's operation reaches is there.
const servicesWith = (part: object) => part as ApiServices;

describe('operationHandler', () => {
  it('refuses an operation that needs its router: a guard, params or middleware would be skipped', () => {
    const guarded = API_OPERATIONS.find((op) => op.access !== 'public');
    const withParams = API_OPERATIONS.find((op) => op.access === 'public' && op.params);
    expect(guarded).toBeDefined();
    expect(() => operationHandler(guarded!, servicesWith({}), options)).toThrow(/needs its router/);
    if (withParams) expect(() => operationHandler(withParams, servicesWith({}), options)).toThrow(/needs its router/);
  });

  it('passes a request of another method on, untouched', () => {
    const handler = operationHandler(INGEST_ROUTE, servicesWith({}), options);
    const next = jest.fn();
    const status = jest.fn();
    handler({ method: 'GET', path: '/github' } as Request, { status } as unknown as Response, next);
    expect(next).toHaveBeenCalledWith();
    expect(status).not.toHaveBeenCalled();
  });

  it("hands the handler's failure to the error handler", async () => {
    const services = {
      webhooks: {
        receive: () => Promise.reject(new Error('store down')),
      },
    };
    const handler = operationHandler(INGEST_ROUTE, servicesWith(services), options);
    const failed = new Promise<unknown>((resolve) => {
      handler(
        { method: 'POST', path: '/github', hostname: 'h', headers: {} } as Request,
        {
          locals: {},
        } as Response,
        resolve,
      );
    });
    expect(await failed).toEqual(new Error('store down'));
  });
});
