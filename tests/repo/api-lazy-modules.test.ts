import { spawnSync } from 'node:child_process';
import path from 'node:path';

// The api loads the MCP SDK, bull-board and undici at their first use (an MCP request, an operator opening the queue
// view, an organization's OIDC sign-in), not at start: together with the MCP tool catalog they were ~23 MB of an idle
// api's 65 MB heap, which its old-space growing factor multiplies into peak RSS (docs/performance.md). A static
// import of any of them, in the api or a package it bundles, brings the cost back at every start.
const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(__dirname, 'fixtures/api-start-modules.mjs');

function packagesLoaded(args: string[] = []) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', FIXTURE, ...args], { cwd: ROOT, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as string[];
}

describe('packages the api loads on first use', () => {
  it('are not loaded by the api runtime module graph', () => {
    expect(packagesLoaded()).toEqual([]);
  });

  it('are seen once used (the check works)', () => {
    expect(packagesLoaded(['use'])).toEqual(['@bull-board/api', '@modelcontextprotocol/sdk', 'undici']);
  });
});
