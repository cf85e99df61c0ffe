// The API's provider (`/rules`) and hook shapes, as the dashboard reads them (the dashboard imports no server package).

export interface Rule {
  id: string;
  source: string;
  target_url: string;
  active: boolean;
  description: string | null;
  has_signing_secret: boolean;
  previous_secret_expires_at: string | null;
  outbound_headers: { forward: string[] };
  created_at: string;
  updated_at: string;
}

export const HOOK_TRIGGERS = ['provider_succeeded', 'provider_failed'] as const;
export type HookTrigger = (typeof HOOK_TRIGGERS)[number];

export interface Hook {
  id: string;
  rule_id: string;
  target_url: string;
  trigger: HookTrigger;
  active: boolean;
  description: string | null;
  created_at: string;
  updated_at: string;
}
