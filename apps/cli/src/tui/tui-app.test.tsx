import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAIT_LIMIT_MS } from '../../test/wait-limit';
import { eventRow, fakeStream, startFakeApi, type FakeApi } from './fake-api.test-support';
import { TuiApp } from './tui-app';

const ESC = '\u001b';
const DOWN = '\u001b[B';

async function until(check: () => boolean, what: () => string, ms = WAIT_LIMIT_MS) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting; screen:\n${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('TuiApp against a fake API', () => {
  let api: FakeApi;
  let stream: ReturnType<typeof fakeStream>;
  beforeEach(async () => {
    api = await startFakeApi(Array.from({ length: 30 }, (_, i) => eventRow(i + 1)));
    stream = fakeStream();
  });
  afterEach(() => api.close());

  const mount = () => {
    const app = render(
      <TuiApp connection={api.connection} color={false} columns={80} rows={24} openStream={stream.open} />,
    );
    const frame = () => app.lastFrame() ?? '';
    const shows = (text: string) => until(() => frame().includes(text), frame);
    const press = async (...keys: string[]) => {
      for (const key of keys) {
        app.stdin.write(key);
        await new Promise((r) => setTimeout(r, 15));
      }
    };
    return { app, frame, shows, press };
  };
  const selectedLine = (frame: string) => frame.split('\n').find((l) => l.startsWith('> ')) ?? '';

  it('shows the first page newest first within 80×24, with the header and the selection on the first row', async () => {
    const { app, frame, shows } = mount();
    await shows(eventRow(1).id);
    await shows('org acme');
    const lines = frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toContain(api.connection.baseUrl);
    expect(lines[0]).toContain('connecting…');
    expect(selectedLine(frame())).toContain(eventRow(1).id);
    expect(frame()).not.toContain(eventRow(30).id); // below the window
    expect(api.requests).toContain('GET /events?per_page=100');
    app.unmount();
  });

  it('shows the count of matching events, marked "~" when the API estimated it', async () => {
    const exact = mount();
    await exact.shows('30/30');
    exact.app.unmount();
    api.estimatedTotal = 1_234_567;
    const estimated = mount();
    await estimated.shows('30/~1234567');
    estimated.app.unmount();
  });

  it('moves the selection with j/k and the arrows, scrolling the window', async () => {
    const { app, frame, shows, press } = mount();
    await shows(eventRow(1).id);
    await press('j', 'j', DOWN);
    expect(selectedLine(frame())).toContain(eventRow(4).id);
    await press('k');
    expect(selectedLine(frame())).toContain(eventRow(3).id);
    await press('G');
    await until(() => selectedLine(frame()).includes(eventRow(30).id), frame);
    expect(frame()).not.toContain(eventRow(1).id);
    app.unmount();
  });

  it('filters with / (Enter applies as the API search, Esc cancels)', async () => {
    const { app, frame, shows, press } = mount();
    await shows(eventRow(1).id);
    await press('/', 's', 't');
    await shows('/ filter: st');
    await press(ESC);
    await until(() => !frame().includes('/ filter:'), frame);
    expect(api.requests.some((r) => r.includes('search='))).toBe(false);
    await press('/', 's', 't', 'r', 'i', 'p', 'e', '\r');
    await shows('filter: stripe');
    await until(() => !frame().includes('github'), frame);
    expect(api.requests).toContain('GET /events?per_page=100&search=stripe');
    app.unmount();
  });

  it('opens the detail with payload, headers and attempts; Esc goes back', async () => {
    const { app, frame, shows, press } = mount();
    await shows(eventRow(1).id);
    await press('j', '\r');
    await shows('"full_name": "octo/hello"');
    expect(frame()).toContain(`Event ${eventRow(2).id}`);
    expect(frame()).toContain('x-github-event: push');
    await shows('#1  HTTP 500  42 ms');
    await press(ESC);
    await shows('STATUS');
    expect(selectedLine(frame())).toContain(eventRow(2).id);
    app.unmount();
  });

  it("shows the event's destination deliveries by name, with status, attempts and why", async () => {
    const event = eventRow(1);
    api.events[0] = { ...event, provider_id: 'r1' };
    const delivery = {
      id: 'dl-1',
      destination_id: '0193a1b2-0000-7000-8000-000000000001',
      target_url: 'http://chat.example/in',
      status: 'failed' as const,
      attempt_count: 3,
      failure_reason: 'retries_exhausted',
      last_error: 'HTTP 503',
      acknowledged: false,
      next_attempt_at: null,
      delivered_at: null,
    };
    const unnamed = {
      ...delivery,
      id: 'dl-2',
      destination_id: '0193ffff-0000-7000-8000-000000000002',
      target_url: 'http://archive.example/in',
      status: 'delivered' as const,
      attempt_count: 1,
      failure_reason: null,
      last_error: null,
      acknowledged: false,
    };
    api.deliveries[event.id] = [delivery, unnamed];
    api.destinations.r1 = [{ id: delivery.destination_id, name: 'chat' }];
    const { app, frame, shows, press } = mount();
    await shows(event.id);
    await press('\r');
    await shows('Deliveries (2)');
    expect(frame()).toContain('  chat  failed  3 attempts  retries_exhausted: HTTP 503  http://chat.example/in');
    expect(frame()).toContain('  0193ffff  delivered  1 attempt  http://archive.example/in');
    expect(api.requests).toContain('GET /rules/r1/destinations');
    await press(ESC);

    // A caller who may not read the rule's destinations sees their ids.
    delete api.destinations.r1;
    await press('\r');
    await shows('  0193a1b2  failed  3 attempts');
    app.unmount();
  });

  it('asks before deleting: n cancels without a call, y deletes and drops the row', async () => {
    const { app, frame, shows, press } = mount();
    await shows(eventRow(1).id);
    await press('d');
    await shows(`Delete event ${eventRow(1).id}? (y/n)`);
    await press('n');
    await shows('Cancelled.');
    expect(api.requests.some((r) => r.startsWith('DELETE'))).toBe(false);
    await press('d', 'y');
    await shows(`Deleted ${eventRow(1).id.slice(0, 8)}.`);
    expect(api.requests).toContain(`DELETE /events/${eventRow(1).id}`);
    expect(frame()).not.toContain(eventRow(1).id);
    expect(selectedLine(frame())).toContain(eventRow(2).id);
    app.unmount();
  });

  it('retries and acknowledges the selected event, and shows an API refusal in the status line', async () => {
    const { app, shows, press } = mount();
    await shows(eventRow(1).id);
    await press('r');
    await shows('Retry of 00000000 queued.');
    expect(api.requests).toContain(`POST /events/${eventRow(1).id}/retry`);
    api.failWrites = { status: 403, code: 'forbidden', detail: 'Your role (viewer) cannot do this.' };
    await press('a');
    await shows('error: Your role (viewer) cannot do this. [forbidden]');
    app.unmount();
  });

  it('shows help with ? and the stats panel with s', async () => {
    const { app, frame, shows, press } = mount();
    await shows(eventRow(1).id);
    await press('?');
    await shows('Keys');
    expect(frame()).toContain('delete the selected event (asks y/n first)');
    await press('q');
    await shows('STATUS');
    await press('s');
    await shows('success rate 66.7%');
    expect(frame()).toContain('latency p50 12 ms');
    expect(frame()).toContain('paused 1');
    await press(ESC);
    await shows('STATUS');
    app.unmount();
  });

  it('says "reconnecting" when the stream drops, keeps the list, and applies live messages', async () => {
    const { app, frame, shows } = mount();
    await shows(eventRow(1).id);
    const options = stream.control.options!;
    options.onState?.('open');
    await shows('● live');
    options.onState?.('reconnecting', { attempt: 1, delayMs: 500, reason: 'socket hang up' });
    await shows('● reconnecting…');
    expect(frame()).toContain(eventRow(1).id);
    options.onState?.('open');
    const fresh = eventRow(99, { created_at: new Date().toISOString() });
    options.onMessage({ type: 'event.created', id: '9', data: { ...fresh, status: 'queued' } });
    await shows(fresh.id);
    // The selection stays on its event when a new one arrives above it.
    expect(selectedLine(frame())).toContain(eventRow(1).id);
    app.unmount();
    expect(stream.control.closed).toBe(true);
  });

  it('keeps the list when the stream cannot start or ends with a refusal, and says so', async () => {
    const broken = () => {
      throw new Error('no stream here');
    };
    const first = render(
      <TuiApp connection={api.connection} color={false} columns={80} rows={24} openStream={broken} />,
    );
    await until(
      () => (first.lastFrame() ?? '').includes(eventRow(1).id),
      () => first.lastFrame() ?? '',
    );
    expect(first.lastFrame()).toContain('● offline');
    first.unmount();

    const { ProblemError } = await import('@relay/client');
    const refused = () => ({
      lastEventId: undefined,
      close: () => {},
      done: Promise.reject(
        new ProblemError({ title: 'Unauthorized', status: 401, code: 'unauthenticated', detail: 'Token revoked.' }),
      ),
    });
    const second = render(
      <TuiApp connection={api.connection} color={false} columns={80} rows={24} openStream={refused} />,
    );
    const frame = () => second.lastFrame() ?? '';
    await until(() => frame().includes('error: Token revoked. [unauthenticated]'), frame);
    expect(frame()).toContain('● offline');
    await until(() => frame().includes(eventRow(1).id), frame);
    second.unmount();
  });
});
