import { checkAddress, checkTargetUrl, parseAllowlist, parsePortPolicy, type TargetPolicy } from './target-policy';

const strict: TargetPolicy = { allowPrivate: false, allowlist: [] };

describe('checkAddress: only globally routable unicast passes', () => {
  it.each([
    ['0.0.0.0'],
    ['0.255.255.255'],
    ['10.0.0.1'],
    ['10.255.255.255'],
    ['100.64.0.1'],
    ['100.127.255.254'],
    ['127.0.0.1'],
    ['127.255.255.254'],
    ['169.254.169.254'],
    ['169.254.0.1'],
    ['172.16.0.1'],
    ['172.31.255.255'],
    ['192.0.0.8'],
    ['192.0.2.1'],
    ['192.88.99.1'],
    ['192.168.1.1'],
    ['198.18.0.1'],
    ['198.19.255.255'],
    ['198.51.100.7'],
    ['203.0.113.9'],
    ['224.0.0.1'],
    ['239.255.255.250'],
    ['240.0.0.1'],
    ['255.255.255.255'],
  ])('refuses IPv4 %s', (ip) => {
    expect(checkAddress(ip, undefined, strict)).toMatchObject({ ok: false, reason: 'blocked_address' });
  });

  it.each([
    ['::'],
    ['::1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:10.1.2.3'],
    ['::ffff:169.254.169.254'],
    ['64:ff9b::7f00:1'],
    ['64:ff9b:1::1'],
    ['2002:7f00:1::1'],
    ['2001::1'],
    ['100::1'],
    ['2001:db8::1'],
    ['2001:10::1'],
    ['2001:20::1'],
    ['3fff::1'],
    ['5f00::1'],
    ['fc00::1'],
    ['fd12:3456::1'],
    ['fe80::1'],
    ['febf::1'],
    ['fec0::1'],
    ['ff02::1'],
    ['ff00::1'],
  ])('refuses IPv6 %s', (ip) => {
    expect(checkAddress(ip, undefined, strict)).toMatchObject({ ok: false, reason: 'blocked_address' });
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['100.128.0.1'],
    ['172.32.0.1'],
    ['2606:4700::1111'],
    ['2a00:1450:4001::200e'],
    ['::ffff:8.8.8.8'],
  ])('allows public %s', (ip) => {
    expect(checkAddress(ip, undefined, strict)).toEqual({ ok: true });
  });

  it('says how to open a hole', () => {
    const check = checkAddress('10.0.0.1', undefined, strict);
    expect(!check.ok && check.message).toMatch(/TARGET_ALLOW_PRIVATE=true or add it to TARGET_ALLOWLIST/);
  });
});

describe('checkTargetUrl', () => {
  it.each([
    ['http://2130706433/'],
    ['http://0x7f.1/'],
    ['http://0177.0.0.1/'],
    ['http://127.1/'],
    ['http://[::1]/'],
    ['http://[::ffff:127.0.0.1]/'],
    ['http://[::ffff:7f00:1]/'],
    ['http://169.254.169.254/latest/meta-data'],
    ['http://[fe80::1]/'],
    ['http://0.0.0.0/'],
    ['https://10.1.1.1:8443/x'],
  ])('refuses the literal %s before any lookup', (url) => {
    expect(checkTargetUrl(url, strict)).toMatchObject({ ok: false, reason: 'blocked_address' });
  });

  it.each([
    ['ftp://example.com/'],
    ['file:///etc/passwd'],
    ['javascript:alert(1)'],
    ['data:text/plain,hi'],
    ['gopher://example.com/'],
  ])('refuses the scheme of %s', (url) => {
    expect(checkTargetUrl(url, strict)).toMatchObject({ ok: false, reason: 'unsupported_scheme' });
  });

  it('refuses credentials, garbage and over-long URLs', () => {
    expect(checkTargetUrl('https://user:pw@example.com/', strict)).toMatchObject({
      ok: false,
      reason: 'credentials_in_url',
    });
    expect(checkTargetUrl('https://user@example.com/', strict)).toMatchObject({
      ok: false,
      reason: 'credentials_in_url',
    });
    expect(checkTargetUrl('/relative', strict)).toMatchObject({ ok: false, reason: 'invalid_url' });
    expect(checkTargetUrl(`https://example.com/${'a'.repeat(2100)}`, strict)).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    });
  });

  it('accepts public literals and leaves host names to the connect-time check', () => {
    expect(checkTargetUrl('https://8.8.8.8/hook', strict).ok).toBe(true);
    expect(checkTargetUrl('http://[2606:4700::1111]/', strict).ok).toBe(true);
    expect(checkTargetUrl('https://hooks.example.com/x?y=1', strict).ok).toBe(true);
  });
});

describe('holes the operator opens', () => {
  it('TARGET_ALLOW_PRIVATE allows every address but not bad schemes or credentials', () => {
    const open: TargetPolicy = { allowPrivate: true, allowlist: [] };
    expect(checkTargetUrl('http://127.0.0.1:8080/', open).ok).toBe(true);
    expect(checkTargetUrl('ftp://127.0.0.1/', open)).toMatchObject({ ok: false, reason: 'unsupported_scheme' });
    expect(checkTargetUrl('http://a:b@127.0.0.1/', open)).toMatchObject({ ok: false, reason: 'credentials_in_url' });
  });

  it('allowlists by CIDR, by IP, by exact host and by wildcard host', () => {
    const policy: TargetPolicy = {
      allowPrivate: false,
      allowlist: parseAllowlist('10.1.0.0/16, 192.168.1.5, receiver, *.svc.internal, fd00::/8'),
    };
    expect(checkAddress('10.1.2.3', undefined, policy).ok).toBe(true);
    expect(checkAddress('10.2.0.1', undefined, policy).ok).toBe(false);
    expect(checkAddress('192.168.1.5', undefined, policy).ok).toBe(true);
    expect(checkAddress('::ffff:192.168.1.5', undefined, policy).ok).toBe(true);
    expect(checkAddress('192.168.1.6', undefined, policy).ok).toBe(false);
    expect(checkAddress('fd00::1', undefined, policy).ok).toBe(true);
    expect(checkAddress('172.18.0.4', 'Receiver.', policy).ok).toBe(true);
    expect(checkAddress('172.18.0.4', 'api.svc.internal', policy).ok).toBe(true);
    expect(checkAddress('172.18.0.4', 'svc.internal', policy).ok).toBe(false);
    expect(checkAddress('172.18.0.4', 'other', policy).ok).toBe(false);
    expect(checkTargetUrl('http://10.1.9.9/', policy).ok).toBe(true);
  });

  it('parseAllowlist rejects entries that are not CIDRs, IPs or host names', () => {
    expect(parseAllowlist(undefined)).toEqual([]);
    expect(parseAllowlist(' , ')).toEqual([]);
    expect(() => parseAllowlist('10.0.0.0/33')).toThrow(/not a valid CIDR/);
    expect(() => parseAllowlist('http://x')).toThrow(/not a valid CIDR/);
    expect(() => parseAllowlist('bad_host!')).toThrow(/neither a CIDR/);
  });
});

describe('port policy (TARGET_ALLOWED_PORTS)', () => {
  it('allows the web ports and unprivileged ones by default, never port 0', () => {
    for (const url of [
      'http://example.com/',
      'https://example.com/',
      'https://example.com:8443/',
      'http://a.io:65535/',
    ])
      expect(checkTargetUrl(url, strict).ok).toBe(true);
    for (const url of ['http://example.com:0/', 'http://example.com:22/', 'https://example.com:25/'])
      expect(checkTargetUrl(url, strict)).toMatchObject({ ok: false, reason: 'blocked_port' });
  });

  it('follows the setting, even with TARGET_ALLOW_PRIVATE', () => {
    const policy: TargetPolicy = { allowPrivate: true, allowlist: [], allowedPorts: parsePortPolicy('443, 8000-8999') };
    expect(checkTargetUrl('https://example.com/', policy).ok).toBe(true);
    expect(checkTargetUrl('http://127.0.0.1:8080/', policy).ok).toBe(true);
    expect(checkTargetUrl('http://example.com/', policy)).toMatchObject({ ok: false, reason: 'blocked_port' });
    expect(checkTargetUrl('https://example.com:9000/', policy)).toMatchObject({ ok: false, reason: 'blocked_port' });
  });

  it('refuses malformed settings', () => {
    expect(parsePortPolicy(undefined)).toEqual([
      [80, 80],
      [443, 443],
      [1024, 65535],
    ]);
    for (const bad of ['0', '70000', '10-5', 'http', '1-2-3']) expect(() => parsePortPolicy(bad)).toThrow(bad);
  });
});

describe('names that can only be internal', () => {
  it.each([
    ['http://localhost:8080/'],
    ['http://LOCALHOST./'],
    ['http://api.localhost/'],
    ['http://receiver/'],
    ['http://printer.local/'],
    ['http://vault.corp.internal/'],
    ['http://nas.home.arpa/'],
    ['http://home.arpa/'],
  ])('refuses %s before any lookup', (url) => {
    expect(checkTargetUrl(url, strict)).toMatchObject({ ok: false, reason: 'blocked_host' });
  });

  it('allows them through TARGET_ALLOW_PRIVATE or an allowlisted name', () => {
    expect(checkTargetUrl('http://localhost:8080/', { allowPrivate: true, allowlist: [] }).ok).toBe(true);
    const policy: TargetPolicy = { allowPrivate: false, allowlist: parseAllowlist('receiver,*.svc.local') };
    expect(checkTargetUrl('http://receiver/', policy).ok).toBe(true);
    expect(checkTargetUrl('http://api.svc.local/', policy).ok).toBe(true);
    expect(checkTargetUrl('http://other.local/', policy)).toMatchObject({ ok: false, reason: 'blocked_host' });
    // A CIDR hole is about addresses, not names.
    const cidr: TargetPolicy = { allowPrivate: false, allowlist: parseAllowlist('127.0.0.0/8') };
    expect(checkTargetUrl('http://localhost/', cidr)).toMatchObject({ ok: false, reason: 'blocked_host' });
  });
});
