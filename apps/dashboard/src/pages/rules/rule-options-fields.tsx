import { Accordion, Badge, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import { fieldErrorUnder } from './field-error';
import { parseFilterDraft } from './filter-draft';
import { FilterSection } from './filter-section';
import { DedupSection, OrderingSection } from './key-sections';
import { DeliveryPolicySection, HealthSection } from './policy-sections';
import { OutboundHeadersSection } from './outbound-headers-section';
import type { SectionProps } from './rule-option-props';
import { VerificationSection } from './verification-section';

interface Section {
  value: string;
  title: string;
  /** Whether the option is on, shown on the collapsed control. */
  on: (p: SectionProps) => boolean;
  /** The problem document fields it shows (a section with an error is marked and opened). */
  fields: string[];
  /** Whether what is typed cannot be sent yet (marked, not reopened: the section is open while typing). */
  invalid?: (p: SectionProps) => boolean;
  body: (p: SectionProps) => ReactNode;
}

const SECTIONS: Section[] = [
  {
    value: 'filter',
    title: 'Filter',
    on: (p) => p.draft.filterText.trim() !== '',
    fields: ['filter'],
    invalid: (p) => !parseFilterDraft(p.draft).ok,
    body: (p) => <FilterSection {...p} />,
  },
  {
    value: 'dedup',
    title: 'Deduplication',
    on: (p) => p.draft.dedupMode !== 'off',
    fields: ['dedup'],
    body: (p) => <DedupSection {...p} />,
  },
  {
    value: 'verification',
    title: 'Inbound verification',
    on: (p) => p.draft.verifyPreset !== 'off',
    fields: ['verification', 'verification_secret'],
    body: (p) => <VerificationSection {...p} />,
  },
  {
    value: 'health',
    title: 'Endpoint health threshold',
    on: (p) => p.draft.unhealthyAfter !== '',
    fields: ['unhealthy_after_seconds'],
    body: (p) => <HealthSection {...p} />,
  },
  {
    value: 'ordering',
    title: 'Ordering',
    on: (p) => p.draft.orderingMode !== 'off',
    fields: ['ordering'],
    body: (p) => <OrderingSection {...p} />,
  },
  {
    value: 'policy',
    title: 'Delivery policy',
    on: (p) =>
      [p.draft.maxAttempts, p.draft.backoffBaseSeconds, p.draft.backoffCapSeconds, p.draft.timeoutSeconds].some(
        (v) => v !== '',
      ),
    fields: ['delivery_policy'],
    body: (p) => <DeliveryPolicySection {...p} />,
  },
  {
    value: 'headers',
    title: 'Outbound headers',
    on: (p) => p.draft.setHeaders.length > 0 || p.draft.removeHeaders.trim() !== '',
    fields: ['outbound_headers'],
    body: (p) => <OutboundHeadersSection {...p} />,
  },
];

/**
 * The rule options, each in a section collapsed by default; a section the API refused a field of opens. Sections
 * open without animation: a closed one renders nothing (its values live in the draft).
 */
export function RuleOptionsFields(props: SectionProps) {
  const failed = SECTIONS.filter((s) => s.fields.some((f) => fieldErrorUnder(props.error, f))).map((s) => s.value);
  return (
    <Accordion multiple variant="contained" key={failed.join()} defaultValue={failed} transitionDuration={0}>
      {SECTIONS.map((section) => {
        const bad = failed.includes(section.value) || section.invalid?.(props) === true;
        const on = section.on(props);
        return (
          <Accordion.Item key={section.value} value={section.value}>
            <Accordion.Control>
              <Group gap="xs">
                {section.title}
                <Badge size="xs" variant="light" color={bad ? 'red' : on ? 'blue' : 'gray'}>
                  {bad ? 'error' : on ? 'on' : 'off'}
                </Badge>
              </Group>
            </Accordion.Control>
            <Accordion.Panel>{section.body(props)}</Accordion.Panel>
          </Accordion.Item>
        );
      })}
    </Accordion>
  );
}
