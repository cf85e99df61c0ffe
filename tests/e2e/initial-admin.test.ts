import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime } from '../../apps/api/src/runtime';
import { basicAuth, FAST_HASH_ENV, startPipeline, type Pipeline } from './harness';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

describe('the first admin', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
  });
  afterAll(() => pipeline.close());

  it('is created from INITIAL_ADMIN_* only while the organization has no admin', async () => {
    const env = {
      ...pipeline.baseEnv,
      ...FAST_HASH_ENV,
      INITIAL_ADMIN_USERNAME: 'root-admin',
      INITIAL_ADMIN_PASSWORD: 'initial-password-1',
      INITIAL_ADMIN_EMAIL: 'ops@example.com',
    };
    const first = createApiRuntime(parseApiConfig(env), pino({ level: 'silent' }));
    await first.start();
    const me = await supertest(first.app)
      .get('/api/auth/me')
      .set('authorization', basicAuth('root-admin', 'initial-password-1'))
      .expect(200);
    expect(me.body).toMatchObject({ role: 'admin', user: { email: 'ops@example.com' } });
    await first.close();

    // A restart with another password changes nothing: an admin exists.
    const second = createApiRuntime(
      parseApiConfig({ ...env, INITIAL_ADMIN_PASSWORD: 'changed-password-2' }),
      pino({ level: 'silent' }),
    );
    await second.start();
    await supertest(second.app)
      .get('/api/auth/me')
      .set('authorization', basicAuth('root-admin', 'changed-password-2'))
      .expect(401);
    await second.close();
    expect(await pipeline.store.prisma.user.count()).toBe(1);
  });

  it('can be created with the documented command', async () => {
    const adminCreate = (username: string, email: string, env: Record<string, string>) =>
      run(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'apps/api/src/cli/main.ts'), 'admin', 'create'].concat([
          '--username',
          username,
          '--email',
          email,
        ]),
        { cwd: ROOT, env: { ...process.env, ...pipeline.baseEnv, ...env } },
      );
    const { stdout } = await adminCreate('cli-admin', 'cli@example.com', {
      RELAY_ADMIN_PASSWORD: 'cli-password-123',
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_TIME_COST: '1',
    });
    expect(stdout).toMatch(/created admin cli-admin/);
    await pipeline.http
      .get('/api/auth/me')
      .set('authorization', basicAuth('cli-admin', 'cli-password-123'))
      .expect(200);
    const refused = await adminCreate('x', 'bad', { RELAY_ADMIN_PASSWORD: 'short' }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect((refused as { code: number }).code).toBe(1);
    expect((refused as { stderr: string }).stderr).toMatch(/username[\s\S]*email[\s\S]*password/);
  });
});
