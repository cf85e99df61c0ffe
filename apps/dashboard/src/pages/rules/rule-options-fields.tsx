import { DedupSection, OrderingSection } from './key-sections';
import { filterSection, HEADERS_SECTION, HEALTH_SECTION, OptionSections, PACING_SECTION } from './option-sections';
import { POLICY_SECTION, transformSection } from './option-sections';
import type { Section } from './option-sections';
import type { SectionProps } from './rule-option-props';
import type { OptionsDraft } from './rule-options-draft';
import { VerificationSection } from './verification-section';

const SECTIONS: Section<OptionsDraft>[] = [
  filterSection(),
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
  HEALTH_SECTION,
  {
    value: 'ordering',
    title: 'Ordering',
    on: (p) => p.draft.orderingMode !== 'off',
    fields: ['ordering'],
    body: (p) => <OrderingSection {...p} />,
  },
  POLICY_SECTION,
  HEADERS_SECTION,
  transformSection(),
  PACING_SECTION,
];

/** The rule options, each in a section collapsed by default (option-sections.tsx). */
export function RuleOptionsFields(props: SectionProps) {
  return <OptionSections {...props} sections={SECTIONS} />;
}
