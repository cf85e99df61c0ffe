import type { Destination } from './destination-types';
import type { Hook, Rule } from './rule-types';

// Test data shared by the rules and rule-detail page tests.
export const RULE_ID = '0190a0a0-0000-7000-8000-000000000001';
export const rule: Rule = {
  id: RULE_ID,
  name: 'stripe-live',
  source: 'stripe',
  target_url: 'https://example.com/stripe',
  active: true,
  description: null,
  has_signing_secret: true,
  previous_secret_expires_at: null,
  outbound_headers: { forward: [], set: {}, remove: [] },
  dedup: null,
  duplicate_count: 0,
  verification: null,
  has_verification_secret: false,
  previous_verification_secret_expires_at: null,
  signature_failures: { count: 0, last_at: null },
  health: { status: 'healthy', reason: null, since: null, failing_since: null, unhealthy_after_seconds: null },
  ordering: null,
  delivery_policy: null,
  filter: null,
  has_transform: false,
  forward_path_query: false,
  rate_limit: null,
  max_concurrency: null,
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
};
export const hook: Hook = {
  id: '0190a0a0-0000-7000-8000-000000000002',
  rule_id: RULE_ID,
  name: 'alert-on-failure',
  target_url: 'https://example.com/alert',
  trigger: 'provider_failed',
  active: true,
  description: null,
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
};
export const destination: Destination = {
  id: '0190a0a0-0000-7000-8000-000000000003',
  rule_id: RULE_ID,
  name: 'archive',
  target_url: 'https://archive.example.com/in',
  filter: null,
  active: true,
  description: null,
  has_signing_secret: false,
  outbound_headers: { forward: [], set: {}, remove: [] },
  delivery_policy: null,
  health: { status: 'healthy', reason: null, since: null, failing_since: null, unhealthy_after_seconds: null },
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
};
