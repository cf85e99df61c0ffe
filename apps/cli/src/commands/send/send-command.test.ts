import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from './send-body';
import { sendModeOf } from './send-command';

const empty = () => Readable.from([]);

describe('sendModeOf', () => {
  it('rule mode by --rule (or its old spelling --provider), manual mode by --source with an optional --target', () => {
    expect(sendModeOf({ rule: 'r1' })).toEqual({ provider_id: 'r1' });
    expect(sendModeOf({ provider: 'r2' })).toEqual({ provider_id: 'r2' });
    expect(sendModeOf({ source: 'gh', target: 'http://x/y' })).toEqual({ source: 'gh', target_url: 'http://x/y' });
    expect(sendModeOf({ source: 'gh' })).toEqual({ source: 'gh', target_url: '' });
  });
  it('refuses both modes, or none', () => {
    expect(() => sendModeOf({ rule: 'r', source: 'gh' })).toThrow(/one mode/);
    expect(() => sendModeOf({ target: 'http://x' })).toThrow(/choose a mode/);
    expect(() => sendModeOf({})).toThrow(/choose a mode/);
  });
});

describe('readBody', () => {
  it('reads --data, a file, or stdin with --file -', async () => {
    expect(await readBody({ data: '{"a":1}' }, empty())).toEqual({ a: 1 });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'relay-send-')), 'body.json');
    writeFileSync(file, '[1,2]');
    expect(await readBody({ file }, empty())).toEqual([1, 2]);
    expect(await readBody({ file: '-' }, Readable.from(['{"from":', '"stdin"}']))).toEqual({ from: 'stdin' });
  });
  it('refuses a body that is not JSON, a missing file, two bodies or none', async () => {
    await expect(readBody({ data: '{nope' }, empty())).rejects.toThrow(/--data is not JSON/);
    await expect(readBody({ file: '/nonexistent/x.json' }, empty())).rejects.toThrow(/cannot read .*ENOENT/);
    await expect(readBody({ data: '1', file: 'x' }, empty())).rejects.toThrow(/once/);
    await expect(readBody({}, empty())).rejects.toThrow(/missing the body/);
  });
});
