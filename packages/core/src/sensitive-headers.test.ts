import { z } from 'zod';
import { parseSettings } from './config-schema';
import { DEFAULT_SENSITIVE_HEADERS, maskedHeaders, sensitiveHeadersSetting } from './sensitive-headers';

describe('sensitive headers', () => {
  it('masks credentials for every reader, keeping only an Authorization scheme', () => {
    expect(maskedHeaders({ authorization: 'Bearer abc.def', 'x-kept': '1' })).toEqual({
      authorization: 'Bearer [masked]',
      'x-kept': '1',
    });
    expect(maskedHeaders({ authorization: 'rawtoken' })).toEqual({ authorization: '[masked]' });
    expect(maskedHeaders({ 'x-kept': '1' })).toEqual({ 'x-kept': '1' });
  });

  it('masks the other credential headers of the built-in list whole', () => {
    const stored = { 'x-api-key': 'secret123', 'x-auth-token': 'Token abc', 'x-gitlab-token': 't', 'x-kept': '1' };
    expect(maskedHeaders(stored)).toEqual({
      'x-api-key': '[masked]',
      // Not an Authorization header: a value with a space is not a scheme and token, any part may be secret.
      'x-auth-token': '[masked]',
      'x-gitlab-token': '[masked]',
      'x-kept': '1',
    });
  });

  it('masks the names it is given', () => {
    expect(maskedHeaders({ 'x-custom': 'v', 'x-api-key': 'k' }, ['x-custom'])).toEqual({
      'x-custom': '[masked]',
      'x-api-key': 'k',
    });
  });

  describe('SENSITIVE_HEADERS', () => {
    const schema = z.object({ SENSITIVE_HEADERS: sensitiveHeadersSetting() });

    it('is the built-in list when unset, and always includes authorization', () => {
      expect(parseSettings(schema, {}).SENSITIVE_HEADERS).toEqual(DEFAULT_SENSITIVE_HEADERS);
      expect(DEFAULT_SENSITIVE_HEADERS).toContain('authorization');
    });

    it('adds names, lower-cased and without repeats, to the built-in list', () => {
      const { SENSITIVE_HEADERS } = parseSettings(schema, {
        SENSITIVE_HEADERS: ' X-Partner-Key, x-api-key,,x-partner-key',
      });
      expect(SENSITIVE_HEADERS).toEqual([...DEFAULT_SENSITIVE_HEADERS, 'x-partner-key']);
    });

    it('refuses what cannot be a header name', () => {
      expect(() => parseSettings(schema, { SENSITIVE_HEADERS: 'x-ok, bad name, x:y' })).toThrow(
        /SENSITIVE_HEADERS: not header names: bad name, x:y/,
      );
    });
  });
});
