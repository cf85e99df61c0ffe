import { CONFIG_VERSION } from '@relay/contracts';
import type { DestinationRecord, HookRecord, RuleRecord } from '@relay/db';
import { canonical, storedDestinationFields, storedRuleFields, type Fields, type StoredConfig } from './config-state';

// The exported document: the file's shape, every secret as a reference the CLI resolves at apply
// (docs/config-as-code.md, "Secrets"), and options left at their default left out, so the file reads like
// one written by hand. Applying it back plans nothing: a field left out compares equal to its default.

/** `github-prod` → `GITHUB_PROD`: the part of an environment variable's name an object's name gives. */
export const envName = (name: string) =>
  name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

const env = (name: string) => `\${env:${name}}`;

/** The references an export writes, one per secret (docs/config-as-code.md lists them). */
export const secretReferences = {
  ruleSigning: (rule: string) => env(`RULE_${envName(rule)}_SIGNING_SECRET`),
  ruleVerification: (rule: string) => env(`RULE_${envName(rule)}_VERIFICATION_SECRET`),
  destinationSigning: (rule: string, destination: string) =>
    env(`RULE_${envName(rule)}_DESTINATION_${envName(destination)}_SIGNING_SECRET`),
  notifications: () => env('NOTIFICATIONS_SECRET'),
};

const EMPTY_HEADERS = canonical({ forward: [], set: {}, remove: [] });

// Options at their default are left out; `active` is always written, as it is the first thing a reader asks.
function withoutDefaults(fields: Fields): Fields {
  return Object.fromEntries(
    Object.entries(fields).filter(([field, value]) => {
      if (field === 'active') return true;
      if (value === null) return false;
      if (field === 'outbound_headers') return canonical(value) !== EMPTY_HEADERS;
      return !(field === 'forward_path_query' && value === false);
    }),
  );
}

function ruleEntry(rule: RuleRecord, destinations: DestinationRecord[], hooks: HookRecord[]) {
  return {
    name: rule.name,
    ...withoutDefaults(storedRuleFields(rule)),
    ...(rule.signingSecret !== null ? { signing_secret: secretReferences.ruleSigning(rule.name) } : {}),
    ...(rule.verificationSecret !== null ? { verification_secret: secretReferences.ruleVerification(rule.name) } : {}),
    ...(destinations.length > 0
      ? {
          destinations: destinations.map((d) => ({
            name: d.name,
            ...withoutDefaults(storedDestinationFields(d)),
            ...(d.signingSecret !== null
              ? { signing_secret: secretReferences.destinationSigning(rule.name, d.name) }
              : {}),
          })),
        }
      : {}),
    ...(hooks.length > 0
      ? {
          hooks: hooks.map((h) => ({
            name: h.name,
            target_url: h.targetUrl,
            trigger: h.trigger,
            active: h.active,
            ...(h.description !== null ? { description: h.description } : {}),
          })),
        }
      : {}),
  };
}

export function exportDocument(stored: StoredConfig, options: { schemaUrl: string; notifications: boolean }) {
  const { notifications } = stored;
  return {
    $schema: options.schemaUrl,
    version: CONFIG_VERSION,
    default_target_url: stored.defaultTargetUrl,
    // Only for callers who may change them (organization:manage): the others' files leave them as they are.
    ...(options.notifications
      ? {
          notifications: {
            url: notifications.url,
            ...(notifications.secretSealed !== null ? { secret: secretReferences.notifications() } : {}),
          },
        }
      : {}),
    rules: stored.rules.map((s) => ruleEntry(s.rule, s.destinations, s.hooks)),
  };
}
