import { startTargetServer, type TargetServer } from '@relay/test-support';
import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

/**
 * A relay for the events commands: source "broken" goes to a target that answers 500 (a rule), every other source
 * to the default target that answers 200. `admin` is an Authorization header for checks through the API.
 */
export interface EventsFixture {
  relay: CliRelay;
  admin: string;
  ok: TargetServer;
  bad: TargetServer;
  /** Ingests to a source and waits until the event has this status. */
  settled(source: string, status: 'delivered' | 'failed', body?: object): Promise<string>;
  close(): Promise<void>;
}

export async function startEventsFixture(): Promise<EventsFixture> {
  const ok = await startTargetServer();
  const bad = await startTargetServer();
  bad.replyWith(500);
  const relay = await startCliRelay({ DEFAULT_TARGET_URL: `${ok.url}/hook` });
  const admin = (await userCredential(relay.pipeline, 'admin')).authorization;
  await relay.pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source: 'broken', target_url: `${bad.url}/in` })
    .expect(201);
  return {
    relay,
    admin,
    ok,
    bad,
    async settled(source, status, body) {
      const id = await relay.ingest(source, body);
      await relay.pipeline.waitForStatus(id, status);
      return id;
    },
    async close() {
      await relay.close();
      await ok.close();
      await bad.close();
    },
  };
}
