import { testPasswords, type Pipeline } from './harness';
import { accountOf, auditActions, sessionOf, startAccountPipeline } from './account-fixture';

const NEW = 'Operator-new-pass-1';

describe('platform operators: passwords, adding and removing operators', () => {
  let pipeline: Pipeline;
  let rootId: string;
  beforeAll(async () => {
    pipeline = await startAccountPipeline();
    const root = await pipeline.store.prisma.platformOperator.create({
      data: { username: 'root-op', passwordHash: await testPasswords.hash('root-password-1') },
    });
    rootId = root.id;
  });
  afterAll(() => pipeline.close());

  it('adds an operator (unique across users and operators), lists them, and audits it', async () => {
    const root = await sessionOf(pipeline, 'root-op', 'root-password-1');
    const created = await root
      .post('/api/platform/operators')
      .send({ username: 'second-op', password: 'Second-operator-1' })
      .expect(201);
    expect(created.body).toMatchObject({ username: 'second-op' });
    await root
      .post('/api/platform/operators')
      .send({ username: 'second-op', password: 'Second-operator-1' })
      .expect(409);
    await accountOf(pipeline, 'some-user', 'admin', 'user-password-12');
    const taken = await root
      .post('/api/platform/operators')
      .send({ username: 'some-user', password: 'Second-operator-1' })
      .expect(409);
    expect(taken.body.code).toBe('username_taken');
    await root.post('/api/platform/operators').send({ username: 'weak-op', password: 'short' }).expect(400);
    const list = await root.get('/api/platform/operators').expect(200);
    expect(list.body.operators.map((o: { username: string }) => o.username)).toEqual(['root-op', 'second-op']);
    await sessionOf(pipeline, 'second-op', 'Second-operator-1');
    const entry = await pipeline.store.prisma.auditEntry.findFirstOrThrow({ where: { action: 'operator.created' } });
    expect(entry).toMatchObject({ organizationId: null, actorUserId: rootId, resourceId: created.body.id });
  });

  it('keeps users out of the operator routes', async () => {
    const user = await sessionOf(pipeline, 'some-user', 'user-password-12');
    await user.get('/api/platform/operators').expect(403);
    await user.post('/api/platform/password').send({ current_password: 'x', new_password: NEW }).expect(403);
  });

  it("changes an operator's password: wrong current refused, other sessions end, this one stays", async () => {
    const here = await sessionOf(pipeline, 'second-op', 'Second-operator-1');
    const elsewhere = await sessionOf(pipeline, 'second-op', 'Second-operator-1');
    const wrong = await here
      .post('/api/platform/password')
      .send({ current_password: 'not-it', new_password: NEW })
      .expect(403);
    expect(wrong.body.code).toBe('wrong_password');
    await here
      .post('/api/platform/password')
      .send({ current_password: 'Second-operator-1', new_password: NEW })
      .expect(204);
    await here.get('/api/platform/operators').expect(200);
    await elsewhere.get('/api/platform/operators').expect(401);
    await pipeline.http
      .post('/api/auth/login')
      .send({ username: 'second-op', password: 'Second-operator-1' })
      .expect(401);
    await sessionOf(pipeline, 'second-op', NEW);
    const id = (await pipeline.store.prisma.platformOperator.findUniqueOrThrow({ where: { username: 'second-op' } }))
      .id;
    expect(await auditActions(pipeline, id)).toEqual(
      expect.arrayContaining(['operator.created', 'operator.password_change_failed', 'operator.password_changed']),
    );
  });

  it('removes an operator (their sessions end), never the last one', async () => {
    const root = await sessionOf(pipeline, 'root-op', 'root-password-1');
    const second = await sessionOf(pipeline, 'second-op', NEW);
    const id = (await pipeline.store.prisma.platformOperator.findUniqueOrThrow({ where: { username: 'second-op' } }))
      .id;
    await root.delete(`/api/platform/operators/${id}`).expect(204);
    await second.get('/api/platform/operators').expect(401);
    await root.delete(`/api/platform/operators/${id}`).expect(404);
    const last = await root.delete(`/api/platform/operators/${rootId}`).expect(409);
    expect(last.body.code).toBe('last_operator');
    expect(await auditActions(pipeline, id)).toContain('operator.deleted');
  });
});
