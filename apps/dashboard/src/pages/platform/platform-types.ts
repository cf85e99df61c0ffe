// The operator console's answers as the dashboard reads them (/api/platform/*).

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'suspended', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface Subscription {
  plan: string;
  status: SubscriptionStatus;
  monthly_event_limit: number | null;
  current_period_end: string | null;
}

export interface HostedOrganization {
  id: string;
  name: string;
  slug: string;
  subscriber_name: string | null;
  billing_contact_name: string | null;
  billing_contact_email: string | null;
  subscription: Subscription;
  created_at: string;
}

export interface EventCounts {
  queued: number;
  delivered: number;
  failed: number;
}

export interface OrganizationDetail extends HostedOrganization {
  users_by_role: Record<string, number>;
  events: EventCounts;
  domains: { domain: string; status: 'pending' | 'active' }[];
  ingest_urls: string[];
}

export interface PlatformOverview {
  organizations: number;
  organizations_by_subscription: Record<string, number>;
  users: number;
  events: EventCounts;
  attempts: Record<string, number>;
}

export interface OrganizationPage {
  organizations: HostedOrganization[];
  total: number;
  page: number;
  per_page: number;
  pages: number;
}
