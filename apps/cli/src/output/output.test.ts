import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorsFor, visibleLength } from './colors';
import { createOutput } from './output';
import { formatTable } from './table';

const streams = () => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { stdin, stdout, stderr, out: () => out, err: () => err };
};
const base = { json: false, quiet: false, yes: false, noColor: false, forceColor: false, ci: false };

describe('output', () => {
  it('colours only a terminal or FORCE_COLOR, never with NO_COLOR', () => {
    expect(colorsFor({ isTty: true, noColor: false, forceColor: false }).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(colorsFor({ isTty: false, noColor: false, forceColor: false }).red('x')).toBe('x');
    expect(colorsFor({ isTty: false, noColor: false, forceColor: true }).enabled).toBe(true);
    expect(colorsFor({ isTty: true, noColor: true, forceColor: true }).red('x')).toBe('x');
  });

  it('aligns table columns by visible width, right-aligns counts and cuts long text', () => {
    const red = colorsFor({ isTty: true, noColor: false, forceColor: false }).red;
    const table = formatTable(
      [
        { id: 'a', status: red('failed'), n: 3, reason: 'x'.repeat(50) },
        { id: 'bbbb', status: 'ok', n: 12, reason: '' },
      ],
      [
        { header: 'id', value: (r) => r.id },
        { header: 'status', value: (r) => r.status },
        { header: 'n', value: (r) => String(r.n), align: 'right' },
        { header: 'reason', value: (r) => r.reason, maxWidth: 10 },
      ],
    );
    const lines = table.split('\n');
    expect(lines[0]).toBe('ID    STATUS   N  REASON');
    expect(visibleLength(lines[1]!)).toBe('a     failed   3  xxxxxxxxx…'.length);
    expect(lines[2]).toBe('bbbb  ok      12');
  });

  it('prints the JSON document with --json, and keeps notes off stdout and out of --quiet', () => {
    const s = streams();
    const json = createOutput(s, { ...base, json: true });
    json.result({ a: 1 }, () => 'human');
    json.note('a note');
    expect(JSON.parse(s.out())).toEqual({ a: 1 });
    expect(s.err()).toBe('');
    const t = streams();
    const human = createOutput(t, base);
    human.result({ a: 1 }, () => 'human');
    human.note('a note');
    expect(t.out()).toBe('human\n');
    expect(t.err()).toContain('a note');
    const q = streams();
    createOutput(q, { ...base, quiet: true }).note('hidden');
    expect(q.err()).toBe('');
  });

  it('asks for --yes instead of prompting when stdin is no terminal, and skips the question with --yes', async () => {
    const s = streams();
    await expect(createOutput(s, base).confirm('Delete event X?')).rejects.toThrow('pass --yes');
    await expect(createOutput(s, { ...base, yes: true }).confirm('Delete event X?')).resolves.toBe(true);
  });

  it('shows no spinner without a terminal', () => {
    const s = streams();
    const spinner = createOutput(s, base).spinner('working');
    spinner.update('still working');
    spinner.stop();
    expect(s.err()).toBe('');
  });
});
