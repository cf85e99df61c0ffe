import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callFails, callOk, startEventFixture, type EventFixture } from './event-fixture';

// The read tools over a real relay: what they answer matches the database, and results stay small.
let fx: EventFixture;
let reader: Client;
let failedId: string;
let deliveredId: string;

beforeAll(async () => {
  fx = await startEventFixture();
  await fx.routeTo('stripe', 500);
  failedId = await fx.settled('stripe', 'failed', { type: 'invoice.paid' });
  deliveredId = await fx.settled('github', 'delivered', { action: 'opened' });
  reader = await fx.relay.connect(await fx.relay.key(['events:read']));
});
afterAll(() => fx.close());

type Summary = { id: string; status: string; source: string; attempts: number; link: string };

describe('event read tools', () => {
  it('list_events filters on status, needs_attention and source, with summaries and links', async () => {
    const failed = await callOk<{ events: Summary[]; total: number; link: string }>(reader, 'list_events', {
      status: 'failed',
      needs_attention: true,
    });
    expect(failed.total).toBe(1);
    expect(failed.events).toEqual([
      expect.objectContaining({
        id: failedId,
        source: 'stripe',
        status: 'failed',
        attempts: 3,
        failure_reason: expect.any(String),
        // The target answered 500 with the target server's body: the summary says so without a second call.
        last_error: expect.stringMatching(/500/),
        link: expect.stringMatching(new RegExp(`/app/events/${failedId}$`)),
      }),
    ]);
    expect(failed.link).toMatch(/\/app\/events\?status=failed&needs_attention=true$/);
    // No payload in a summary.
    expect(Object.keys(failed.events[0]!)).not.toContain('payload');

    const bySource = await callOk<{ events: Summary[] }>(reader, 'list_events', { source: 'github', per_page: 5 });
    expect(bySource.events.map((e) => e.id)).toEqual([deliveredId]);
    // One rule's events: the failed event's rule, by its id (a source can feed several rules).
    const { provider_id: ruleId } = (
      await fx.relay.pipeline.http.get(`/events/${failedId}`).set('authorization', fx.admin).expect(200)
    ).body as { provider_id: string };
    const byRule = await callOk<{ events: Summary[]; link: string }>(reader, 'list_events', { rule_id: ruleId });
    expect(byRule.events.map((e) => e.id)).toEqual([failedId]);
    expect(byRule.link).toMatch(new RegExp(`/app/events\\?rule_id=${ruleId}$`));
    const future = await callOk<{ total: number }>(reader, 'list_events', { from: '2999-01-01T00:00:00Z' });
    expect(future.total).toBe(0);
    // per_page above the tool's cap is refused by its schema.
    expect((await reader.callTool({ name: 'list_events', arguments: { per_page: 500 } })).isError).toBe(true);
  });

  it('get_event and list_event_attempts answer what the database holds', async () => {
    const event = await callOk<Record<string, unknown>>(reader, 'get_event', { id: failedId });
    const stored = (await fx.relay.pipeline.eventById(failedId))!;
    expect(event).toMatchObject({
      id: failedId,
      status: 'failed',
      attempts: stored.attemptCount,
      failure_reason: stored.failureReason,
      payload_preview: '{"type":"invoice.paid"}',
      payload_truncated: false,
      payload_note: null,
    });
    expect(event.headers).toMatchObject({ 'content-type': 'application/json' });

    const { attempts, total } = await callOk<{ attempts: { response_status: number }[]; total: number }>(
      reader,
      'list_event_attempts',
      { id: failedId },
    );
    expect(total).toBe((await fx.relay.pipeline.attemptsOf(failedId)).length);
    expect(attempts.map((a) => a.response_status)).toEqual([500, 500, 500]);
  });

  it('get_stats counts the window and reports the success rate and latency', async () => {
    const stats = await callOk<Record<string, unknown>>(reader, 'get_stats', { window: '24h' });
    expect(stats).toMatchObject({
      total: 2,
      by_status: { queued: 0, delivered: 1, failed: 1 },
      needs_attention: 1,
      success_rate: 0.5,
      link: expect.stringMatching(/\/app\/\?window=24h$/),
    });
    expect((stats.latency_ms as { p50: number }).p50).toEqual(expect.any(Number));
    expect(stats).not.toHaveProperty('series');
    expect(await callFails(reader, 'get_stats', { window: '1y' })).toMatch(/not a number with m, h or d/);
    const past = await callOk<{ total: number }>(reader, 'get_stats', {
      from: '2000-01-01T00:00:00Z',
      to: '2000-01-02T00:00:00Z',
    });
    expect(past.total).toBe(0);
  });

  it('a 1 MB payload: get_event stays small, get_event_payload pages reassemble the exact text', async () => {
    // Mixed text: a multi-byte character and an emoji (a surrogate pair) around the page boundaries.
    const chunk = 'abcdefghij'.repeat(9) + 'é€😀' + '"\\';
    const raw = `{"blob":${JSON.stringify(chunk.repeat(Math.ceil(1_000_000 / chunk.length)))}}`;
    expect(Buffer.byteLength(raw)).toBeGreaterThan(1_000_000);
    const id = await fx.ingest('big', raw);

    const result = await reader.callTool({ name: 'get_event', arguments: { id } });
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text.length).toBeLessThan(10_000);
    expect(result.structuredContent).toMatchObject({
      payload_truncated: true,
      payload_chars: raw.length,
      payload_note: expect.stringContaining('get_event_payload'),
    });

    const pieces: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const piece: { text: string; next_offset: number | null; total_chars: number } = await callOk(
        reader,
        'get_event_payload',
        { id, offset },
      );
      expect(piece.text.length).toBeLessThanOrEqual(100_000);
      expect(piece.total_chars).toBe(raw.length);
      pieces.push(piece.text);
      offset = piece.next_offset;
    }
    expect(pieces.length).toBe(Math.ceil(raw.length / 100_000));
    const stored = (await fx.relay.pipeline.eventById(id))!;
    expect(Buffer.from(pieces.join(''), 'utf8').equals(Buffer.from(stored.body))).toBe(true);
    expect(pieces.join('')).toBe(raw);

    // A small max_chars never splits the emoji's surrogate pair.
    const at = raw.indexOf('😀');
    const cut = await callOk<{ text: string; next_offset: number }>(reader, 'get_event_payload', {
      id,
      offset: at - 1,
      max_chars: 2,
    });
    expect(cut).toMatchObject({ text: raw[at - 1], next_offset: at });
    expect(await callFails(reader, 'get_event_payload', { id, offset: raw.length + 1 })).toMatch(/past the end/);
  });

  it('an unknown event is a clear error', async () => {
    expect(await callFails(reader, 'get_event', { id: '0192f000-0000-7000-8000-000000000000' })).toBe(
      'No such event. [not_found]',
    );
  });

  it('get_event masks credential headers, and list_events finds no event by one', async () => {
    const res = await fx.relay.pipeline.http
      .post('/mcp-sensitive')
      .set({ 'content-type': 'application/json', 'x-api-key': 'mcp-secret-123', authorization: 'Bearer mcp-abc-456' })
      .send('{"n":1}')
      .expect(202);
    const event = await callOk<{ headers: Record<string, string> }>(reader, 'get_event', { id: res.body.id });
    expect(event.headers).toMatchObject({ 'x-api-key': '[masked]', authorization: 'Bearer [masked]' });
    expect(JSON.stringify(event)).not.toMatch(/mcp-secret-123|mcp-abc-456/);
    for (const search of ['mcp-secret-123', 'mcp-abc-456'])
      expect((await callOk<{ total: number }>(reader, 'list_events', { search })).total).toBe(0);
  });
});

describe('event tool inputs', () => {
  it('refuses a time that is not ISO 8601, naming the field', async () => {
    const text = await callFails(reader, 'list_events', { from: 'yesterday' });
    expect(text).toMatch(/from/);
    expect(text).toMatch(/Invalid ISO datetime/i);
  });
});
