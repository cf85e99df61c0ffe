import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EXIT_USAGE, UsageError } from '../errors';
import { formatFields, oneOf, readSecretFromStdin } from './admin-kit';
import { shownOnce } from './credential-views';
import { recordsBlock } from './domains/domains-commands';

describe('formatFields', () => {
  it('aligns values after the longest label; an empty label continues the line above', () => {
    expect(
      formatFields([
        ['id', '1'],
        ['all hosts', 'a'],
        ['', 'b'],
      ]),
    ).toBe('id:        1\nall hosts: a\n           b');
  });
});

describe('oneOf', () => {
  it('passes an allowed value and refuses another as a usage error naming the choices', () => {
    const role = oneOf(['viewer', 'admin'] as const, 'the role');
    expect(role('admin')).toBe('admin');
    expect(() => role('owner')).toThrow(new UsageError('the role must be one of viewer, admin, got "owner"'));
    try {
      role('owner');
    } catch (error) {
      expect((error as UsageError).exitCode).toBe(EXIT_USAGE);
    }
  });
});

describe('readSecretFromStdin', () => {
  it('drops one trailing newline only, and keeps inner whitespace', async () => {
    expect(await readSecretFromStdin(Readable.from(['s3cret with space\n']), 'x')).toBe('s3cret with space');
    expect(await readSecretFromStdin(Readable.from(['two\n', '\n']), 'x')).toBe('two\n');
    expect(await readSecretFromStdin(Readable.from(['crlf\r\n']), 'x')).toBe('crlf');
  });

  it('refuses empty input as a usage error', async () => {
    await expect(readSecretFromStdin(Readable.from(['\n']), 'signing secret')).rejects.toThrow(
      'expected the signing secret on stdin, got nothing',
    );
  });
});

describe('shownOnce', () => {
  it('prints the secret alone, or says why an idempotent replay has none', () => {
    expect(shownOnce({ token: 'ts_abc' })).toBe('ts_abc');
    expect(shownOnce({ secret_redacted: true })).toContain('shown when the request was first made');
  });
});

describe('recordsBlock', () => {
  it('prints the DNS records as an indented table', () => {
    const block = recordsBlock({
      records: [
        { type: 'CNAME', name: 'hooks.example.com', value: 'relay.test' },
        { type: 'TXT', name: '_relay-verification.hooks.example.com', value: 'relay-verify-1' },
      ],
    } as Parameters<typeof recordsBlock>[0]);
    expect(block.split('\n')).toEqual([
      '  TYPE   NAME                                   VALUE',
      '  CNAME  hooks.example.com                      relay.test',
      '  TXT    _relay-verification.hooks.example.com  relay-verify-1',
    ]);
  });
});
