import { Button, Group, Pill, Select, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { SEARCH_SHORTCUT_ATTR } from '../../app/keyboard-shortcuts';
import { DELIVERY_STATUSES, EVENT_STATUSES, type EventsSearch } from './events-search';

const PER_PAGE_OPTIONS = ['25', '50', '100', '200'];

// datetime-local inputs hold local wall time without zone; the URL holds ISO instants.
const toInput = (iso?: string) =>
  iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '';
const fromInput = (value: string) => (value ? new Date(value).toISOString() : undefined);

interface Props {
  search: EventsSearch;
  /** Replaces some filters; every filter change starts again at page 1. */
  onChange: (patch: Partial<EventsSearch>) => void;
}

/** The Events page's filters; each one is a search param of the URL (needs attention: the page's shortcut). */
export function EventsFilters({ search, onChange }: Props) {
  const [text, setText] = useState(search.search ?? '');
  useEffect(() => setText(search.search ?? ''), [search.search]);
  const sources = useQuery({
    queryKey: ['events', 'sources'],
    queryFn: () => dataOf(client.GET('/events/sources')),
  });
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onChange({ search: text.trim() || undefined });
        }}
      >
        <TextInput
          label="Search"
          placeholder="source, payload, headers"
          {...{ [SEARCH_SHORTCUT_ATTR]: true }}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
      </form>
      <Select
        label="Status"
        placeholder="any"
        clearable
        data={[...EVENT_STATUSES]}
        value={search.status ?? null}
        onChange={(v) => onChange({ status: (v as EventsSearch['status']) ?? undefined })}
      />
      <Select
        label="Source"
        placeholder="any"
        clearable
        searchable
        data={sources.data?.sources.map((s) => s.source) ?? (search.source ? [search.source] : [])}
        value={search.source ?? null}
        onChange={(v) => onChange({ source: v ?? undefined })}
      />
      <Select
        label="A destination delivery"
        placeholder="any"
        clearable
        w={170}
        data={[...DELIVERY_STATUSES]}
        value={search.delivery_status ?? null}
        onChange={(v) => onChange({ delivery_status: (v as EventsSearch['delivery_status']) ?? undefined })}
      />
      {/* Set by the overview's and a rule page's links to a rule's events; picking a source is the list's own way to narrow. */}
      {search.rule_id ? (
        <Pill withRemoveButton onRemove={() => onChange({ rule_id: undefined })} mb={8}>
          rule {search.rule_id.slice(0, 8)}
        </Pill>
      ) : null}
      {/* Set by a link from a rule's destinations; there is no list of every destination to pick from here. */}
      {search.destination_id ? (
        <Pill withRemoveButton onRemove={() => onChange({ destination_id: undefined })} mb={8}>
          destination {search.destination_id.slice(0, 8)}
        </Pill>
      ) : null}
      <TextInput
        label="From"
        type="datetime-local"
        value={toInput(search.from)}
        onChange={(e) => onChange({ from: fromInput(e.currentTarget.value) })}
      />
      <TextInput
        label="To"
        type="datetime-local"
        value={toInput(search.to)}
        onChange={(e) => onChange({ to: fromInput(e.currentTarget.value) })}
      />
      <Select
        label="Per page"
        w={100}
        data={PER_PAGE_OPTIONS}
        value={String(search.per_page)}
        onChange={(v) => onChange({ per_page: Number(v ?? 50) })}
        allowDeselect={false}
      />
      <Button
        variant="subtle"
        onClick={() =>
          onChange({
            search: undefined,
            status: undefined,
            source: undefined,
            rule_id: undefined,
            from: undefined,
            to: undefined,
            needs_attention: undefined,
            delivery_status: undefined,
            destination_id: undefined,
          })
        }
      >
        Clear
      </Button>
    </Group>
  );
}
