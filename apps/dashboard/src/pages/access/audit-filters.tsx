import { Button, Group, TextInput } from '@mantine/core';
import { useState } from 'react';

/** The audit log's filters as `GET /api/audit` takes them; only the ones set. */
export interface AuditFilter {
  action?: string;
  actor_email?: string;
  resource_type?: string;
  resource_id?: string;
  from?: string;
  to?: string;
}

// datetime-local inputs hold local wall time without a zone; the API takes ISO instants.
const toInput = (iso?: string) =>
  iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '';
const fromInput = (value: string) => (value ? new Date(value).toISOString() : undefined);

const TEXT_FIELDS = ['action', 'actor_email', 'resource_type', 'resource_id'] as const;

/** Drops empty fields and spaces around values (and around the commas of an action list). */
function cleaned(draft: AuditFilter): AuditFilter {
  const out: AuditFilter = {};
  for (const key of TEXT_FIELDS) {
    const value = draft[key]?.trim();
    if (value) out[key] = key === 'action' ? value.replace(/\s*,\s*/g, ',') : value;
  }
  if (draft.from) out.from = draft.from;
  if (draft.to) out.to = draft.to;
  return out;
}

interface Props {
  filter: AuditFilter;
  /** Actions to suggest: the API lists none, so those already seen on the page. */
  actions: string[];
  onChange: (filter: AuditFilter) => void;
  /** Examples shown in the empty action and resource type fields (the platform log's are organizations'). */
  examples?: { action: string; resourceType: string };
}

const ORGANIZATION_EXAMPLES = { action: 'rule.created', resourceType: 'rule' };

/** Typed filters apply together on "Filter" (or Enter): one request, not one per keystroke. */
export function AuditFilters({ filter, actions, onChange, examples = ORGANIZATION_EXAMPLES }: Props) {
  const [draft, setDraft] = useState<AuditFilter>(filter);
  const set = (patch: AuditFilter) => setDraft((d) => ({ ...d, ...patch }));
  return (
    <form
      aria-label="Audit filters"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(cleaned(draft));
      }}
    >
      <Group align="flex-end" gap="sm" wrap="wrap">
        {/* A native list of suggestions: any text is still accepted (the API lists no actions). */}
        <TextInput
          label="Action"
          placeholder={`${examples.action}, …`}
          w={200}
          list="audit-actions"
          value={draft.action ?? ''}
          onChange={(e) => set({ action: e.currentTarget.value })}
        />
        <datalist id="audit-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <TextInput
          label="Actor e-mail"
          w={200}
          value={draft.actor_email ?? ''}
          onChange={(e) => set({ actor_email: e.currentTarget.value })}
        />
        <TextInput
          label="Resource type"
          placeholder={examples.resourceType}
          w={130}
          value={draft.resource_type ?? ''}
          onChange={(e) => set({ resource_type: e.currentTarget.value })}
        />
        <TextInput
          label="Resource id"
          w={200}
          value={draft.resource_id ?? ''}
          onChange={(e) => set({ resource_id: e.currentTarget.value })}
        />
        <TextInput
          label="From"
          type="datetime-local"
          value={toInput(draft.from)}
          onChange={(e) => set({ from: fromInput(e.currentTarget.value) })}
        />
        <TextInput
          label="To"
          type="datetime-local"
          value={toInput(draft.to)}
          onChange={(e) => set({ to: fromInput(e.currentTarget.value) })}
        />
        <Button type="submit">Filter</Button>
        <Button
          variant="subtle"
          onClick={() => {
            setDraft({});
            onChange({});
          }}
        >
          Clear
        </Button>
      </Group>
    </form>
  );
}
