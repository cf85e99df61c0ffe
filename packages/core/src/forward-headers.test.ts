import { fixedHeaders, forwardableHeaders, isRelayOwnedOutboundHeader, storableHeaders } from './forward-headers';

describe('header forwarding rule', () => {
  const incoming = {
    Host: 'relay.example',
    'Content-Length': '12',
    Connection: 'keep-alive',
    'Transfer-Encoding': 'chunked',
    Cookie: 'a=b',
    'X-Target-Url': 'https://x',
    'X-Hub-Signature-256': 'sha256=1',
    'Stripe-Signature': 't=1,v1=2',
    'X-Forwarded-For': ['1.1.1.1', '2.2.2.2'],
    'Content-Type': 'application/json',
    'User-Agent': 'GitHub-Hookshot/1',
    'webhook-id': 'upstream',
  };

  it('stores everything but hop-by-hop, Host, Content-Length, cookies and relay steering headers', () => {
    const stored = storableHeaders(incoming);
    expect(Object.keys(stored).sort()).toEqual([
      'content-type',
      'stripe-signature',
      'user-agent',
      'webhook-id',
      'x-forwarded-for',
      'x-hub-signature-256',
    ]);
    expect(stored['x-forwarded-for']).toBe('1.1.1.1, 2.2.2.2');
  });

  it('drops headers that Connection names as hop-by-hop', () => {
    expect(storableHeaders({ Connection: 'keep-alive, X-Hop', 'X-Hop': '1', 'X-Kept': '2' })).toEqual({
      'x-kept': '2',
    });
  });

  it('forwards the sender headers, leaving out the ones the relay sets itself', () => {
    expect(forwardableHeaders(storableHeaders(incoming))).toEqual({
      'stripe-signature': 't=1,v1=2',
      'x-forwarded-for': '1.1.1.1, 2.2.2.2',
      'x-hub-signature-256': 'sha256=1',
    });
  });

  it("withholds the sender's Authorization unless the rule forwards it", () => {
    const stored = storableHeaders({ Authorization: 'Bearer provider-token', 'X-Kept': '1' });
    expect(forwardableHeaders(stored)).toEqual({ 'x-kept': '1' });
    expect(forwardableHeaders(stored, { forward: [] })).toEqual({ 'x-kept': '1' });
    expect(forwardableHeaders(stored, { forward: ['authorization'] })).toEqual({
      authorization: 'Bearer provider-token',
      'x-kept': '1',
    });
  });

  it('never forwards the inbound headers a rule removes, whatever their case', () => {
    const stored = storableHeaders({ 'X-Secret': 's', 'X-Kept': '1', Authorization: 'Bearer t' });
    expect(forwardableHeaders(stored, { remove: ['X-Secret'] })).toEqual({ 'x-kept': '1' });
    // Removing wins over forwarding an opt-in header.
    expect(forwardableHeaders(stored, { forward: ['authorization'], remove: ['authorization'] })).toEqual({
      'x-kept': '1',
      'x-secret': 's',
    });
  });

  it("gives a rule's fixed headers lower-cased, never one of the relay's own", () => {
    expect(fixedHeaders({})).toEqual({});
    expect(
      fixedHeaders({ set: { 'X-Api-Key': 'k', 'content-type': 'text/plain', 'webhook-id': 'x', host: 'h' } }),
    ).toEqual({ 'x-api-key': 'k' });
  });

  it('names the headers a rule can neither set nor remove', () => {
    for (const name of ['Content-Type', 'user-agent', 'x-relay-signature', 'webhook-signature', 'host', 'te'])
      expect(isRelayOwnedOutboundHeader(name)).toBe(true);
    for (const name of ['authorization', 'x-api-key', 'cookie', 'x-hub-signature-256'])
      expect(isRelayOwnedOutboundHeader(name)).toBe(false);
  });
});
