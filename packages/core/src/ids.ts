// Branded ids: a repository that takes an OrgId cannot be handed a bare string by accident,
// so a query that forgets its tenant does not compile.
declare const orgBrand: unique symbol;
export type OrgId = string & { readonly [orgBrand]: true };

export const DEFAULT_ORGANIZATION_ID = '00000000-0000-7000-8000-000000000001' as OrgId;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Trust boundary: only code that has authenticated or loaded the organization calls this. */
export function asOrgId(value: string): OrgId {
  if (!isUuid(value)) throw new Error(`not an organization id: ${value}`);
  return value as OrgId;
}
