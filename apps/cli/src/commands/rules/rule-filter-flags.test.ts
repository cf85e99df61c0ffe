import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors';
import { filterFromFlags } from './rule-filter-flags';

describe('rule filter flags', () => {
  it('reads JSON inline or from @file, CEL as {"cel": …}, and --no-filter as null', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-filter-'));
    const file = join(dir, 'filter.json');
    await writeFile(file, '{"headers": {"x-env": "prod"}}');
    expect(await filterFromFlags({ filter: '{"body": {"type": "push"}}' })).toEqual({ body: { type: 'push' } });
    expect(await filterFromFlags({ filter: `@${file}` })).toEqual({ headers: { 'x-env': 'prod' } });
    expect(await filterFromFlags({ filterCel: 'body.amount > 1' })).toEqual({ cel: 'body.amount > 1' });
    expect(await filterFromFlags({ filter: false })).toBeNull();
    expect(await filterFromFlags({})).toBeUndefined();
  });

  it('refuses text that is not a JSON object, a missing file, and two filters at once', async () => {
    await expect(filterFromFlags({ filter: '{"body": ' })).rejects.toThrow(/--filter is not JSON/);
    await expect(filterFromFlags({ filter: '[1]' })).rejects.toThrow(/must be a JSON object/);
    await expect(filterFromFlags({ filter: '@/nonexistent/filter.json' })).rejects.toThrow(/cannot read .*ENOENT/);
    await expect(filterFromFlags({ filter: '{}', filterCel: 'true' })).rejects.toThrow(UsageError);
    await expect(filterFromFlags({ filter: false, filterCel: 'true' })).rejects.toThrow(/one of --filter/);
    await expect(filterFromFlags({ filterCel: ' ' })).rejects.toThrow(/needs an expression/);
  });
});
