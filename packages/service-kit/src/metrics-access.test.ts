import { metricsAccessAllowed } from './metrics-access';

describe('metricsAccessAllowed', () => {
  it('lets every scrape in while no token is set', () => {
    expect(metricsAccessAllowed(undefined, undefined)).toBe(true);
    expect(metricsAccessAllowed('Bearer anything', undefined)).toBe(true);
  });

  it('with a token, wants exactly `Bearer <token>`', () => {
    const token = 'scrape-token-0123456789';
    expect(metricsAccessAllowed(`Bearer ${token}`, token)).toBe(true);
    expect(metricsAccessAllowed(`bearer  ${token}`, token)).toBe(true);
    expect(metricsAccessAllowed(undefined, token)).toBe(false);
    expect(metricsAccessAllowed('', token)).toBe(false);
    expect(metricsAccessAllowed('Bearer ', token)).toBe(false);
    expect(metricsAccessAllowed(`Bearer ${token}0`, token)).toBe(false);
    expect(metricsAccessAllowed(`Bearer ${token.slice(0, -1)}`, token)).toBe(false);
    expect(metricsAccessAllowed(`Basic ${token}`, token)).toBe(false);
    expect(metricsAccessAllowed(token, token)).toBe(false);
  });
});
