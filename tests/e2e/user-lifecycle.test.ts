import { apiKeyCredential, basicAuth, type Pipeline } from './harness';
import { accountOf, auditActions, startAccountPipeline } from './account-fixture';

type Account = Awaited<ReturnType<typeof accountOf>>;

describe('account lifecycle: disabling, re-enabling and deleting users', () => {
  let pipeline: Pipeline;
  let ada: Account;
  let bea: Account;
  let key: string;
  beforeAll(async () => {
    pipeline = await startAccountPipeline();
    ada = await accountOf(pipeline, 'ada', 'admin', 'ada-password-12');
    bea = await accountOf(pipeline, 'bea', 'admin', 'bea-password-12');
    key = await apiKeyCredential(pipeline, ['organization:manage']);
  });
  afterAll(() => pipeline.close());

  it("refuses a disabled user's session, token and Basic at once; enabling brings Basic and tokens back", async () => {
    const vic = await accountOf(pipeline, 'vic', 'viewer', 'vic-password-12');
    const disabled = await ada.session.post(`/api/users/${vic.user.id}/disable`).expect(200);
    expect(disabled.body).toMatchObject({ username: 'vic', disabled: true });
    await vic.session.get('/api/auth/tokens').expect(401);
    await pipeline.http.get('/api/auth/tokens').set('authorization', vic.token).expect(401);
    await pipeline.http.get('/api/auth/tokens').set('authorization', vic.basic).expect(401);
    // Login fails exactly like a wrong password: no telling a disabled account from a wrong guess.
    const login = await pipeline.http
      .post('/api/auth/login')
      .send({ username: 'vic', password: 'vic-password-12' })
      .expect(401);
    const wrong = await pipeline.http.post('/api/auth/login').send({ username: 'vic', password: 'nope' }).expect(401);
    expect({ ...login.body, request_id: null }).toEqual({ ...wrong.body, request_id: null });
    const list = await ada.session.get('/api/users').expect(200);
    expect(list.body.users.find((u: { username: string }) => u.username === 'vic')).toMatchObject({ disabled: true });

    const enabled = await ada.session.post(`/api/users/${vic.user.id}/enable`).expect(200);
    expect(enabled.body).toMatchObject({ disabled: false });
    await pipeline.http.get('/api/auth/tokens').set('authorization', vic.basic).expect(200);
    await pipeline.http.get('/api/auth/tokens').set('authorization', vic.token).expect(200);
    // Sessions from before the disable stay over.
    await vic.session.get('/api/auth/tokens').expect(401);
    expect(await auditActions(pipeline, vic.user.id)).toEqual(
      expect.arrayContaining(['user.disabled', 'user.enabled']),
    );
  });

  it('deletes a user, keeping their audit entries', async () => {
    const del = await accountOf(pipeline, 'del', 'viewer', 'del-password-12');
    await ada.session.post(`/api/users/${del.user.id}/disable`).expect(200);
    await ada.session.delete(`/api/users/${del.user.id}`).expect(204);
    await pipeline.http.get('/api/auth/tokens').set('authorization', basicAuth('del', 'del-password-12')).expect(401);
    await pipeline.http.get('/api/auth/tokens').set('authorization', del.token).expect(401);
    const list = await ada.session.get('/api/users').expect(200);
    expect(list.body.users.map((u: { username: string }) => u.username)).not.toContain('del');
    expect(await auditActions(pipeline, del.user.id)).toEqual(
      expect.arrayContaining(['user.disabled', 'user.deleted']),
    );
    await ada.session.delete(`/api/users/${del.user.id}`).expect(404);
  });

  it('refuses acting on your own account, and viewers', async () => {
    expect((await ada.session.post(`/api/users/${ada.user.id}/disable`).expect(409)).body.code).toBe('own_account');
    expect((await ada.session.delete(`/api/users/${ada.user.id}`).expect(409)).body.code).toBe('own_account');
    const val = await accountOf(pipeline, 'val', 'viewer', 'val-password-12');
    await val.session.post(`/api/users/${bea.user.id}/disable`).expect(403);
    await val.session.delete(`/api/users/${bea.user.id}`).expect(403);
  });

  it('never disables, deletes or demotes the last active admin (409 last_admin)', async () => {
    await ada.session.post(`/api/users/${bea.user.id}/disable`).expect(200);
    // Bea is disabled: Ada is the last active admin, whoever asks.
    expect((await pipeline.http.post(`/api/users/${ada.user.id}/disable`).set('authorization', key)).body.code).toBe(
      'last_admin',
    );
    await pipeline.http.delete(`/api/users/${ada.user.id}`).set('authorization', key).expect(409);
    await pipeline.http
      .patch(`/api/users/${ada.user.id}/role`)
      .set('authorization', key)
      .send({ role: 'viewer' })
      .expect(409);
    // A disabled admin can still be deleted or demoted: the organization keeps Ada.
    await pipeline.http
      .patch(`/api/users/${bea.user.id}/role`)
      .set('authorization', key)
      .send({ role: 'viewer' })
      .expect(200);
    await pipeline.http.delete(`/api/users/${bea.user.id}`).set('authorization', key).expect(204);
    await ada.session.get('/api/users').expect(200);
  });
});
