import { createHash } from 'node:crypto';
import supertest from 'supertest';
import { sessionStillValid } from '../../apps/api/src/auth/sessions';
import { apiKeyCredential, basicAuth, type Pipeline } from './harness';
import { accountOf, auditActions, BASE_URL, sessionOf, startAccountPipeline } from './account-fixture';

const NEW = 'Brand-new-password-1';

describe('account lifecycle: changing and resetting passwords', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startAccountPipeline();
  });
  afterAll(() => pipeline.close());

  it('refuses a wrong current password (403, audited) and a weak new one (400), changing nothing', async () => {
    const pat = await accountOf(pipeline, 'pat', 'viewer', 'pat-password-12');
    const wrong = await pat.session
      .post('/api/auth/password')
      .send({ current_password: 'not-it', new_password: NEW })
      .expect(403);
    expect(wrong.body.code).toBe('wrong_password');
    const weak = await pat.session
      .post('/api/auth/password')
      .send({ current_password: 'pat-password-12', new_password: 'short' })
      .expect(400);
    expect(weak.body.code).toBe('validation_failed');
    await pipeline.http.get('/api/auth/tokens').set('authorization', pat.basic).expect(200);
    await pipeline.http.get('/api/auth/tokens').set('authorization', pat.token).expect(200);
    expect(await auditActions(pipeline, pat.user.id)).toContain('auth.password_change_failed');
  });

  it('ends every other session and every personal token; the current session survives', async () => {
    const sam = await accountOf(pipeline, 'sam', 'viewer', 'sam-password-12');
    const other = await sessionOf(pipeline, 'sam', 'sam-password-12');
    await sam.session
      .post('/api/auth/password')
      .send({ current_password: 'sam-password-12', new_password: NEW })
      .expect(204);
    await sam.session.get('/api/auth/tokens').expect(200);
    await other.get('/api/auth/tokens').expect(401);
    await pipeline.http.get('/api/auth/tokens').set('authorization', sam.token).expect(401);
    await pipeline.http.get('/api/auth/tokens').set('authorization', sam.basic).expect(401);
    await pipeline.http.get('/api/auth/tokens').set('authorization', basicAuth('sam', NEW)).expect(200);
    expect(await pipeline.store.prisma.personalToken.count({ where: { userId: sam.user.id } })).toBe(0);
    expect(await auditActions(pipeline, sam.user.id)).toContain('auth.password_changed');
    // The old password no longer logs in; the new one does.
    await pipeline.http.post('/api/auth/login').send({ username: 'sam', password: 'sam-password-12' }).expect(401);
    await sessionOf(pipeline, 'sam', NEW);
  });

  it('changes the password over Basic too, and refuses API keys (they have none)', async () => {
    const bo = await accountOf(pipeline, 'bo', 'viewer', 'bo-password-123');
    await pipeline.http
      .post('/api/auth/password')
      .set('authorization', bo.basic)
      .send({ current_password: 'bo-password-123', new_password: NEW })
      .expect(204);
    await bo.session.get('/api/auth/tokens').expect(401);
    const key = await apiKeyCredential(pipeline, ['organization:manage']);
    await pipeline.http
      .post('/api/auth/password')
      .set('authorization', key)
      .send({ current_password: 'x', new_password: NEW })
      .expect(403);
  });

  it('refuses a session that started before the cut, or has no start time while a cut is set', () => {
    const cut = new Date(1_000_000);
    expect(sessionStillValid(undefined, null)).toBe(true);
    expect(sessionStillValid(undefined, cut)).toBe(false);
    expect(sessionStillValid(999_999, cut)).toBe(false);
    expect(sessionStillValid(1_000_000, cut)).toBe(false);
    expect(sessionStillValid(1_000_001, cut)).toBe(true);
  });

  it('lets an admin issue a one-time, expiring code that sets the password and ends sessions and tokens', async () => {
    const ada = await accountOf(pipeline, 'ada', 'admin', 'ada-password-12');
    const kim = await accountOf(pipeline, 'kim', 'viewer', 'kim-password-12');
    await kim.session.post(`/api/users/${ada.user.id}/password-reset`).expect(403);
    const issued = await ada.session.post(`/api/users/${kim.user.id}/password-reset`).expect(201);
    const code = issued.body.code as string;
    expect(issued.body.link).toBe(`${BASE_URL}/app/set-password?code=${code}`);
    expect(Date.parse(issued.body.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    // Stored as a digest only.
    const stored = await pipeline.store.prisma.passwordReset.findFirstOrThrow({ where: { userId: kim.user.id } });
    expect(stored.codeHash).toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(code);

    const anon = supertest(pipeline.api.app);
    await anon.post('/api/auth/password-reset').send({ code, new_password: 'weak' }).expect(400);
    await anon.post('/api/auth/password-reset').send({ code, new_password: NEW }).expect(204);
    await kim.session.get('/api/auth/tokens').expect(401);
    await anon.get('/api/auth/tokens').set('authorization', kim.token).expect(401);
    await anon.get('/api/auth/tokens').set('authorization', kim.basic).expect(401);
    await anon.get('/api/auth/tokens').set('authorization', basicAuth('kim', NEW)).expect(200);
    const again = await anon.post('/api/auth/password-reset').send({ code, new_password: NEW }).expect(400);
    expect(again.body.code).toBe('reset_code_invalid');
    expect(await auditActions(pipeline, kim.user.id)).toEqual(
      expect.arrayContaining(['user.password_reset_issued', 'user.password_reset']),
    );

    const late = await ada.session.post(`/api/users/${kim.user.id}/password-reset`).expect(201);
    await pipeline.store.prisma.passwordReset.updateMany({
      where: { userId: kim.user.id, usedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await anon
      .post('/api/auth/password-reset')
      .send({ code: late.body.code, new_password: 'Another-password-2' })
      .expect(400);
    expect(expired.body).toMatchObject({ code: 'reset_code_invalid', detail: expect.stringContaining('expired') });
    await anon.get('/api/auth/tokens').set('authorization', basicAuth('kim', NEW)).expect(200);
    await anon.post('/api/auth/password-reset').send({ code: 'no-such-code', new_password: NEW }).expect(400);
    await ada.session.post('/api/users/00000000-0000-7000-8000-0000000000aa/password-reset').expect(404);
  });
});
