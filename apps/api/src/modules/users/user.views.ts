import type { OrganizationRecord, UserRecord } from '@relay/db';

export const userView = (u: UserRecord) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  role: u.role,
  disabled: u.disabledAt !== null,
  created_at: u.createdAt.toISOString(),
});

export const organizationView = (o: OrganizationRecord) => ({ id: o.id, slug: o.slug, name: o.name });
