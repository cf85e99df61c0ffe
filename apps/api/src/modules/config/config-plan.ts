import { secretHashMatches, type SecretKeyring } from '@relay/core';
import type { configChangeSchema } from '@relay/contracts';
import type { DestinationRecord, HookRecord, RuleRecord } from '@relay/db';
import type { z } from 'zod';
import {
  canonical,
  documentDestinationFields,
  documentHookFields,
  documentRuleFields,
  storedDestinationFields,
  storedHookFields,
  storedRuleFields,
  transformShown,
  type ConfigDocument,
  type DocumentDestination,
  type DocumentHook,
  type DocumentRule,
  type Fields,
  type StoredConfig,
} from './config-state';

// The plan of an apply: per object created, changed or deleted, field by field. Secrets are compared through the
// keyed hash stored beside them and shown only as "(set)" and "(changed)".

export type ConfigChange = z.infer<typeof configChangeSchema>;
type FieldChange = ConfigChange['fields'][number];

export const SECRET_SET = '(set)';
export const SECRET_CHANGED = '(changed)';

/** A secret field: what the document asks (value, null = none) against what is stored (sealed, with its hash). */
interface SecretField {
  field: string;
  wanted: string | null;
  sealed: string | null;
  hash: string | null;
}

/** What the executor needs beside the shown change: the records and the document entries it is about. */
export type PlannedStep =
  | { kind: 'rule'; change: ConfigChange; stored?: RuleRecord; wanted?: DocumentRule; changed: Set<string> }
  | {
      kind: 'destination';
      change: ConfigChange;
      rule: string;
      stored?: DestinationRecord;
      wanted?: DocumentDestination;
      changed: Set<string>;
    }
  | {
      kind: 'hook';
      change: ConfigChange;
      rule: string;
      stored?: HookRecord;
      wanted?: DocumentHook;
      changed: Set<string>;
    }
  | { kind: 'default_target'; change: ConfigChange; url: string | null }
  | { kind: 'notifications'; change: ConfigChange; url: string | null; secret: string | null; changed: Set<string> };

const shown = (field: string, value: unknown) =>
  field === 'transform' ? transformShown(value as string | null) : value;

function fieldChanges(before: Fields | null, after: Fields): FieldChange[] {
  return Object.keys(after)
    .filter((f) => before === null || canonical(before[f]) !== canonical(after[f]))
    .filter((f) => before !== null || !isDefault(f, after[f]))
    .map((f) => ({ field: f, old: before === null ? null : shown(f, before[f]), new: shown(f, after[f]) }));
}
// A created object's plan lists what it sets, not every option it leaves off.
const EMPTY_HEADERS = canonical({ forward: [], set: {}, remove: [] });
const isDefault = (field: string, value: unknown) =>
  value === null || canonical(value) === EMPTY_HEADERS || (field === 'forward_path_query' && value === false);

function secretChanges(keys: SecretKeyring | undefined, secrets: SecretField[]): FieldChange[] {
  return secrets.flatMap(({ field, wanted, sealed, hash }): FieldChange[] => {
    if (wanted === null) return sealed === null ? [] : [{ field, old: SECRET_SET, new: null }];
    if (sealed !== null && secretHashMatches(keys, hash, wanted)) return [];
    return [{ field, old: sealed === null ? null : SECRET_SET, new: SECRET_CHANGED }];
  });
}

const byName = <T extends { name: string }>(items: T[]) => new Map(items.map((i) => [i.name, i]));

interface Diff {
  kind: 'rule' | 'destination' | 'hook';
  name: string;
  rule: string | null;
  path: string;
  before: Fields | null;
  after: Fields;
  secrets: SecretField[];
}

function diffOf(keys: SecretKeyring | undefined, d: Diff) {
  const fields = [...fieldChanges(d.before, d.after), ...secretChanges(keys, d.secrets)];
  const action = d.before === null ? ('create' as const) : ('update' as const);
  const change: ConfigChange = { kind: d.kind, action, name: d.name, rule: d.rule, path: d.path, fields };
  return { change, changed: new Set(fields.map((f) => f.field)), empty: d.before !== null && fields.length === 0 };
}

const deletion = (kind: ConfigChange['kind'], name: string, rule: string | null): ConfigChange => ({
  kind,
  action: 'delete',
  name,
  rule,
  path: '',
  fields: [],
});

/** The steps that make the stored configuration the document's (deletions only with `prune`). */
export function planConfig(
  stored: StoredConfig,
  doc: ConfigDocument,
  options: { prune: boolean; keys: SecretKeyring | undefined },
): PlannedStep[] {
  const { keys, prune } = options;
  const steps: PlannedStep[] = [];
  const storedRules = new Map(stored.rules.map((s) => [s.rule.name, s]));
  const named = new Set(doc.rules.map((r) => r.name));
  if (prune)
    for (const s of stored.rules)
      if (!named.has(s.rule.name))
        steps.push({ kind: 'rule', change: deletion('rule', s.rule.name, null), stored: s.rule, changed: new Set() });

  doc.rules.forEach((wanted, ri) => {
    const current = storedRules.get(wanted.name);
    const rule = current?.rule;
    const d = diffOf(keys, {
      kind: 'rule',
      name: wanted.name,
      rule: null,
      path: `/rules/${ri}`,
      before: rule ? storedRuleFields(rule) : null,
      after: documentRuleFields(wanted),
      secrets: [
        secretOf('signing_secret', wanted.signing_secret, rule?.signingSecret, rule?.signingSecretHash),
        secretOf(
          'verification_secret',
          wanted.verification_secret,
          rule?.verificationSecret,
          rule?.verificationSecretHash,
        ),
      ],
    });
    if (!d.empty) steps.push({ kind: 'rule', change: d.change, stored: rule, wanted, changed: d.changed });

    const destinations = byName(current?.destinations ?? []);
    if (prune)
      for (const old of current?.destinations ?? [])
        if (!wanted.destinations.some((w) => w.name === old.name))
          steps.push({
            kind: 'destination',
            change: deletion('destination', old.name, wanted.name),
            rule: wanted.name,
            stored: old,
            changed: new Set(),
          });
    wanted.destinations.forEach((w, di) => {
      const old = destinations.get(w.name);
      const dd = diffOf(keys, {
        kind: 'destination',
        name: w.name,
        rule: wanted.name,
        path: `/rules/${ri}/destinations/${di}`,
        before: old ? storedDestinationFields(old) : null,
        after: documentDestinationFields(w),
        secrets: [secretOf('signing_secret', w.signing_secret, old?.signingSecret, old?.signingSecretHash)],
      });
      if (!dd.empty)
        steps.push({
          kind: 'destination',
          change: dd.change,
          rule: wanted.name,
          stored: old,
          wanted: w,
          changed: dd.changed,
        });
    });

    const hooks = byName(current?.hooks ?? []);
    if (prune)
      for (const old of current?.hooks ?? [])
        if (!wanted.hooks.some((w) => w.name === old.name))
          steps.push({
            kind: 'hook',
            change: deletion('hook', old.name, wanted.name),
            rule: wanted.name,
            stored: old,
            changed: new Set(),
          });
    wanted.hooks.forEach((w, hi) => {
      const old = hooks.get(w.name);
      const hd = diffOf(keys, {
        kind: 'hook',
        name: w.name,
        rule: wanted.name,
        path: `/rules/${ri}/hooks/${hi}`,
        before: old ? storedHookFields(old) : null,
        after: documentHookFields(w),
        secrets: [],
      });
      if (!hd.empty)
        steps.push({ kind: 'hook', change: hd.change, rule: wanted.name, stored: old, wanted: w, changed: hd.changed });
    });
  });

  // Absent from the document: left as it is (an export without organization:manage has no notifications).
  if (doc.default_target_url !== undefined && doc.default_target_url !== stored.defaultTargetUrl) {
    const fields = [{ field: 'default_target_url', old: stored.defaultTargetUrl, new: doc.default_target_url }];
    const change: ConfigChange = {
      kind: 'default_target',
      action: 'update',
      name: 'default_target',
      rule: null,
      path: '/default_target_url',
      fields,
    };
    steps.push({ kind: 'default_target', change, url: doc.default_target_url });
  }
  if (doc.notifications !== undefined) {
    const { url, secret } = doc.notifications;
    const now = stored.notifications;
    const fields = [
      ...(url !== now.url ? [{ field: 'url', old: now.url, new: url }] : []),
      // A URL of null forgets the secret: asking for one beside it is refused by the schema's sibling rule.
      ...secretChanges(keys, [secretOf('secret', url === null ? null : secret, now.secretSealed, now.secretHash)]),
    ];
    if (fields.length > 0) {
      const change: ConfigChange = {
        kind: 'notifications',
        action: 'update',
        name: 'notifications',
        rule: null,
        path: '/notifications',
        fields,
      };
      const changed = new Set(fields.map((f) => f.field));
      steps.push({ kind: 'notifications', change, url, secret: url === null ? null : (secret ?? null), changed });
    }
  }
  return steps;
}

const secretOf = (
  field: string,
  wanted: string | null | undefined,
  sealed: string | null | undefined,
  hash: string | null | undefined,
): SecretField => ({ field, wanted: wanted ?? null, sealed: sealed ?? null, hash: hash ?? null });
