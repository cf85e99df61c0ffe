import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { userCredential } from '../e2e/harness';
import { startMcpRelay, type McpRelay } from './mcp-harness';

/**
 * A relay for the event tools: every source goes to `ok` (answers 200) except those with a rule to their own
 * target (`routeTo`). `admin` is an Authorization header for setting things up through the API.
 */
export interface EventFixture {
  relay: McpRelay;
  admin: string;
  ok: TargetServer;
  /** A new target that answers as told, and a rule sending `source` to it. */
  routeTo(source: string, ...replies: Parameters<TargetServer['replyWith']>): Promise<TargetServer>;
  /** Ingests a JSON body (an object, or raw text sent as is) to a source; answers the event id. */
  ingest(source: string, body?: object | string): Promise<string>;
  /** Ingests and waits until the event has this status. */
  settled(source: string, status: 'delivered' | 'failed', body?: object | string): Promise<string>;
  /** The id of the API key behind an Authorization header (`Bearer ts_<prefix>_<secret>`). */
  keyIdOf(authorization: string): Promise<string>;
  close(): Promise<void>;
}

export async function startEventFixture(): Promise<EventFixture> {
  const ok = await startTargetServer();
  // Room for the 1 MB payload beside JSON's own framing.
  const relay = await startMcpRelay({ DEFAULT_TARGET_URL: `${ok.url}/hook`, INGEST_MAX_BODY_BYTES: '2097152' });
  const admin = (await userCredential(relay.pipeline, 'admin')).authorization;
  const targets: TargetServer[] = [ok];
  const ingest = async (source: string, body: object | string = { n: 1 }) => {
    const res = await relay.pipeline.http
      .post(`/${source}`)
      .set('content-type', 'application/json')
      .send(body)
      .expect(202);
    return res.body.id as string;
  };
  return {
    relay,
    admin,
    ok,
    async routeTo(source, ...replies) {
      const target = await startTargetServer();
      targets.push(target);
      target.replyWith(...replies);
      await relay.pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source, target_url: `${target.url}/in` })
        .expect(201);
      return target;
    },
    ingest,
    async settled(source, status, body) {
      const id = await ingest(source, body);
      await relay.pipeline.waitForStatus(id, status);
      return id;
    },
    async keyIdOf(authorization) {
      const prefix = authorization.replace(/^Bearer ts_/, '').split('_')[0];
      return (await relay.pipeline.store.prisma.apiKey.findFirstOrThrow({ where: { prefix } })).id;
    },
    async close() {
      await relay.close();
      for (const target of targets) await target.close();
    },
  };
}

/** A tool call's structured result; fails the test with the tool's own text when it is an error. */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** The text of a tool call that must fail. */
export async function callFails(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) throw new Error(`${name} did not fail: ${JSON.stringify(result.structuredContent)}`);
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
}
