import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callOk, startEventFixture, type EventFixture } from './event-fixture';

// Each event as a resource `relay://events/{id}`, and the "triage failed deliveries" prompt.
let fx: EventFixture;
let reader: Client;
const ids: string[] = [];

beforeAll(async () => {
  fx = await startEventFixture();
  // 22 events, one by one so their order is the order of ingest: resources/list names the newest 20.
  for (let n = 0; n < 22; n++) ids.push(await fx.ingest(`src${n % 3}`, { n }));
  reader = await fx.relay.connect(await fx.relay.key(['events:read']));
});
afterAll(() => fx.close());

describe('event resources', () => {
  it('resources/list names the 20 newest events; the template is relay://events/{id}', async () => {
    const { resourceTemplates } = await reader.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'relay://events/{id}', mimeType: 'application/json' }),
    ]);
    const { resources } = await reader.listResources();
    const newest = await callOk<{ events: { id: string }[] }>(reader, 'list_events', { per_page: 20 });
    expect(resources.map((r) => r.uri)).toEqual(newest.events.map((e) => `relay://events/${e.id}`));
    expect(resources).toHaveLength(20);
    expect(new Set(resources.map((r) => r.uri))).not.toContain(`relay://events/${ids[0]}`);
    expect(resources[0]).toMatchObject({ name: expect.stringMatching(/^src\d event /), mimeType: 'application/json' });
  });

  it('resources/read answers the event as JSON: summary, headers, payload preview and a link', async () => {
    const id = ids[5]!;
    await fx.relay.pipeline.waitForStatus(id, 'delivered');
    const { contents } = await reader.readResource({ uri: `relay://events/${id}` });
    expect(contents).toEqual([{ uri: `relay://events/${id}`, mimeType: 'application/json', text: expect.any(String) }]);
    const event = JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>;
    const stored = (await fx.relay.pipeline.eventById(id))!;
    expect(event).toMatchObject({
      id,
      source: stored.source,
      status: 'delivered',
      attempts: stored.attemptCount,
      payload_preview: '{"n":5}',
      payload_truncated: false,
      link: expect.stringMatching(new RegExp(`/app/events/${id}$`)),
    });
    expect(event.headers).toMatchObject({ 'content-type': 'application/json' });
    await expect(reader.readResource({ uri: 'relay://events/0192f000-0000-7000-8000-000000000000' })).rejects.toThrow(
      /No such event/,
    );
  });

  it('a key that may not read events has no event resources', async () => {
    const rulesOnly = await fx.relay.connect(await fx.relay.key(['rules:read']));
    await expect(rulesOnly.listResources()).rejects.toThrow();
    await expect(rulesOnly.readResource({ uri: `relay://events/${ids[0]}` })).rejects.toThrow();
  });
});

describe('the triage prompt', () => {
  it('is listed with its optional arguments', async () => {
    const { prompts } = await reader.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'triage_failed_deliveries',
        arguments: [
          expect.objectContaining({ name: 'source', required: false }),
          expect.objectContaining({ name: 'since', required: false }),
        ],
      }),
    ]);
  });

  it('walks list_events → list_event_attempts → a proposed retry, with the filters it was given', async () => {
    const { messages } = await reader.getPrompt({
      name: 'triage_failed_deliveries',
      arguments: { source: 'stripe', since: '2025-01-31T22:00:00Z' },
    });
    expect(messages).toHaveLength(1);
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toContain('list_events with status: "failed", needs_attention: true, source: "stripe", from: ');
    expect(text).toContain('"2025-01-31T22:00:00Z"');
    const order = ['list_events', 'list_event_attempts', 'retry_event', 'bulk_retry_events'].map((t) =>
      text.indexOf(t),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(text).toMatch(/until the user confirms/);

    const plain = await reader.getPrompt({ name: 'triage_failed_deliveries', arguments: {} });
    expect((plain.messages[0]!.content as { text: string }).text).not.toContain('source:');
  });
});
