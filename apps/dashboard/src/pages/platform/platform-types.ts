// The operator console's answers as the dashboard reads them (/api/platform/*).

import type { AnswerOf } from '@relay/client';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'suspended', 'canceled'] as const;

export type OrganizationPage = AnswerOf<'/api/platform/organizations', 'get'>;
export type HostedOrganization = OrganizationPage['organizations'][number];
export type Subscription = HostedOrganization['subscription'];
export type OrganizationDetail = AnswerOf<'/api/platform/organizations/{id}', 'get'>;
export type PlatformOverview = AnswerOf<'/api/platform/overview', 'get'>;
