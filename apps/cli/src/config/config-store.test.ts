import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConfigStore } from './config-store';

const fileIn = () => path.join(mkdtempSync(path.join(tmpdir(), 'relay-config-')), 'webhook-relay', 'config.json');

describe('config store', () => {
  it('reads a missing file as no profiles, and writes 0600 in a 0700 folder', async () => {
    const file = fileIn();
    const store = createConfigStore(file);
    expect(await store.read()).toEqual({ profiles: {} });
    await store.write({ current_profile: 'default', profiles: { default: { url: 'http://r', token: 'ts_x' } } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect((await store.read()).profiles.default?.token).toBe('ts_x');
  });

  it('tightens a file that was world-readable when it writes it again', async () => {
    const file = fileIn();
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ profiles: {} }));
    chmodSync(file, 0o644);
    await createConfigStore(file).write({ profiles: { a: { url: 'http://r' } } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.a.url).toBe('http://r');
  });

  it('tightens a folder that already existed with a wider mode to 0700', async () => {
    const file = fileIn();
    mkdirSync(path.dirname(file), { recursive: true });
    chmodSync(path.dirname(file), 0o755);
    await createConfigStore(file).write({ profiles: {} });
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('names the file when it is not JSON or not a config', async () => {
    const file = fileIn();
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{ nope');
    await expect(createConfigStore(file).read()).rejects.toThrow(`${file} is not valid JSON`);
    writeFileSync(file, JSON.stringify({ profiles: { a: { token: 1 } } }));
    await expect(createConfigStore(file).read()).rejects.toThrow('is not a relay config file');
  });
});
