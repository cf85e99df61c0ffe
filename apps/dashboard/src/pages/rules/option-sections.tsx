import { Accordion, Badge, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import { fieldErrorUnder } from './field-error';
import { parseFilterDraft } from './filter-draft';
import { FilterSection } from './filter-section';
import { DeliveryPolicySection, HealthSection } from './policy-sections';
import { OutboundHeadersSection } from './outbound-headers-section';
import { PacingSection } from './pacing-section';
import type { SectionProps } from './rule-option-props';
import type { TargetOptionsDraft } from './target-options-draft';
import { transformPacingProblems } from './transform-pacing-draft';
import { TransformSection } from './transform-section';

// The option sections of the rule form and the destination form: one accordion, each option in a section
// collapsed by default. The six a destination shares with the rule are defined here once.

export interface Section<D> {
  value: string;
  title: string;
  /** Whether the option is on, shown on the collapsed control. */
  on: (p: SectionProps<D>) => boolean;
  /** The problem document fields it shows (a section with an error is marked and opened). */
  fields: string[];
  /** Whether what is typed cannot be sent yet (marked, not reopened: the section is open while typing). */
  invalid?: (p: SectionProps<D>) => boolean;
  body: (p: SectionProps<D>) => ReactNode;
}

/** The filter section; in a destination's form it decides that destination (`destination.id` once saved). */
export const filterSection = (destination?: { id?: string | undefined }): Section<TargetOptionsDraft> => ({
  value: 'filter',
  title: 'Filter',
  on: (p) => p.draft.filterText.trim() !== '',
  fields: ['filter'],
  invalid: (p) => !parseFilterDraft(p.draft).ok,
  body: (p) => <FilterSection {...p} destination={destination} />,
});

export const HEALTH_SECTION: Section<TargetOptionsDraft> = {
  value: 'health',
  title: 'Endpoint health threshold',
  on: (p) => p.draft.unhealthyAfter !== '',
  fields: ['unhealthy_after_seconds'],
  body: (p) => <HealthSection {...p} />,
};

export const POLICY_SECTION: Section<TargetOptionsDraft> = {
  value: 'policy',
  title: 'Delivery policy',
  on: (p) =>
    [p.draft.maxAttempts, p.draft.backoffBaseSeconds, p.draft.backoffCapSeconds, p.draft.timeoutSeconds].some(
      (v) => v !== '',
    ),
  fields: ['delivery_policy'],
  body: (p) => <DeliveryPolicySection {...p} />,
};

export const HEADERS_SECTION: Section<TargetOptionsDraft> = {
  value: 'headers',
  title: 'Outbound headers',
  on: (p) => p.draft.setHeaders.length > 0 || p.draft.removeHeaders.trim() !== '',
  fields: ['outbound_headers'],
  body: (p) => <OutboundHeadersSection {...p} />,
};

const problemAt = (p: SectionProps<TargetOptionsDraft>, fields: string[]) => {
  const problems = transformPacingProblems(p.draft);
  return fields.some((field) => Object.keys(problems).some((f) => f === field || f.startsWith(`${field}.`)));
};

/** The transform section; in a destination's form its test runs as that destination (`destination.id` once saved). */
export const transformSection = (destination?: { id?: string | undefined }): Section<TargetOptionsDraft> => ({
  value: 'transform',
  title: 'Transform',
  on: (p) => p.draft.transformText.trim() !== '',
  fields: ['transform', 'forward_path_query'],
  invalid: (p) => problemAt(p, ['transform']),
  body: (p) => <TransformSection {...p} destination={destination} />,
});

export const PACING_SECTION: Section<TargetOptionsDraft> = {
  value: 'pacing',
  title: 'Pacing',
  on: (p) => p.draft.rateLimit !== '' || p.draft.maxConcurrency !== '',
  fields: ['rate_limit', 'max_concurrency'],
  invalid: (p) => problemAt(p, ['rate_limit', 'max_concurrency']),
  body: (p) => <PacingSection {...p} />,
};

/**
 * The sections as an accordion; a section the API refused a field of opens. Sections open without animation: a
 * closed one renders nothing (its values live in the draft).
 */
export function OptionSections<D>({ sections, ...props }: SectionProps<D> & { sections: Section<D>[] }) {
  const failed = sections.filter((s) => s.fields.some((f) => fieldErrorUnder(props.error, f))).map((s) => s.value);
  return (
    <Accordion multiple variant="contained" key={failed.join()} defaultValue={failed} transitionDuration={0}>
      {sections.map((section) => {
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
