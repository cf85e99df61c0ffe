import { checkAccess, type Principal } from './access';
import { issueToken, parseToken, secretMatches } from './tokens';

describe('tokens', () => {
  it('issues ts_ tokens that parse back and match only their own hash', () => {
    const a = issueToken();
    const b = issueToken();
    expect(a.token).toMatch(/^ts_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toContain(a.secretHash);
    const parsed = parseToken(a.token)!;
    expect(parsed.prefix).toBe(a.prefix);
    expect(secretMatches(parsed.secret, a.secretHash)).toBe(true);
    expect(secretMatches(parsed.secret, b.secretHash)).toBe(false);
    expect(parseToken('ts_short')).toBeNull();
    expect(parseToken(`xx${a.token.slice(2)}`)).toBeNull();
  });
});

describe('checkAccess', () => {
  const base: Principal = {
    kind: 'user',
    mechanism: 'basic',
    orgId: 'o' as never,
    role: 'viewer',
    scopes: 'all',
    userId: 'u',
    username: 'v',
    email: null,
    credentialId: null,
  };
  it('needs the role', () => {
    expect(checkAccess(base, { role: 'viewer', scope: 'events:read' })).toEqual({ ok: true });
    expect(checkAccess(base, { role: 'admin', scope: 'rules:write' })).toEqual({ ok: false, reason: 'role' });
    expect(checkAccess({ ...base, role: 'admin' }, { role: 'viewer', scope: 'events:read' })).toEqual({ ok: true });
  });
  it('needs the scope for API keys', () => {
    const key: Principal = { ...base, kind: 'api_key', mechanism: 'token', role: 'admin', scopes: ['events:read'] };
    expect(checkAccess(key, { role: 'viewer', scope: 'events:read' })).toEqual({ ok: true });
    expect(checkAccess(key, { role: 'admin', scope: 'rules:write' })).toEqual({ ok: false, reason: 'scope' });
    expect(checkAccess(key, { role: 'viewer', scope: null })).toEqual({ ok: true });
  });
});
