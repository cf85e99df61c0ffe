import { API_PATHS, RESERVED_PATH_SEGMENTS } from './catalog';

// Both sets are derived from the declared operations, so a new top-level route is reserved (and
// gets credentials resolved) without a list to remember.
describe('paths derived from the operation catalog', () => {
  it('reserves the first segment of every route of the relay itself as a non-source', () => {
    expect([...RESERVED_PATH_SEGMENTS].sort()).toEqual(
      [
        ...['admin', 'api', 'app', 'config', 'docs', 'events', 'health', 'mcp', 'metrics', 'openapi.json', 'ready'],
        ...['favicon.ico', 'rules', 'stats'],
      ].sort(),
    );
  });

  it('resolves credentials under the API paths only', () => {
    expect([...API_PATHS].sort()).toEqual(['/api', '/config', '/events', '/mcp', '/rules', '/stats']);
  });
});
