import type supertest from 'supertest';
import type { Pipeline } from './harness';

export const PLATFORM_TOKEN = 'platform-admin-token-0123456789abcdef';
export const CANONICAL = 'relay.test';

/** Settings of a pipeline with hosted organizations and a platform operator (see `operatorSession`). */
export const HOSTED_ENV = {
  SESSION_SECRET: 's',
  PLATFORM_ADMIN_TOKEN: PLATFORM_TOKEN,
  INGEST_CANONICAL_HOST: CANONICAL,
  SESSION_COOKIE_SECURE: 'false',
};

/** Bootstraps the platform operator and logs it in; answers a function that signs a request as the operator. */
export async function operatorSession(pipeline: Pipeline): Promise<(req: supertest.Test) => supertest.Test> {
  const created = await pipeline.http
    .post('/api/platform/bootstrap/operator')
    .set('authorization', `Bearer ${PLATFORM_TOKEN}`)
    .send({ username: 'root' })
    .expect(201);
  const login = await pipeline.http
    .post('/api/auth/login')
    .send({ username: 'root', password: created.body.password })
    .expect(200);
  const cookie = ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;
  return (req) => req.set('cookie', cookie).set('sec-fetch-site', 'same-origin');
}

/** A webhook posted to an organization's ingest host. */
export const webhookAt = (http: ReturnType<typeof supertest>, host: string, body = '{"n":1}') =>
  http.post('/orders').set('host', host).set('content-type', 'application/json').send(body);
