import { createRelayClient } from './index';

describe('createRelayClient', () => {
  it("sends the browser's cookies, the given headers, and paths under the base URL", async () => {
    const seen: Request[] = [];
    const client = createRelayClient({
      baseUrl: 'https://relay.example.com/',
      headers: { authorization: 'Bearer ts_x_y' },
      fetch: async (request: Request) => {
        seen.push(request);
        return Response.json({ target_url: null, effective_target_url: null, effective_from: null });
      },
    });
    const { data } = await client.GET('/config/default-target');
    expect(data).toEqual({ target_url: null, effective_target_url: null, effective_from: null });
    expect(seen[0]!.url).toBe('https://relay.example.com/config/default-target');
    expect(seen[0]!.credentials).toBe('include');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer ts_x_y');
  });
});
