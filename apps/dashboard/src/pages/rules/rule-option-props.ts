import type { OptionsDraft } from './rule-options-draft';
import type { Rule } from './rule-types';

/** What each option section of the rule form gets: the draft, a setter of some of its fields, the last error. */
export interface SectionProps {
  draft: OptionsDraft;
  set: (patch: Partial<OptionsDraft>) => void;
  /** The failed save, whose problem document names fields (`dedup.header`). */
  error: unknown;
  /** The rule being edited; undefined for a new one. */
  rule?: Rule | undefined;
}

/** NativeSelect's data from values, labelled as they are unless a label is given. */
export const choices = <T extends string>(values: readonly T[], labels: Partial<Record<T, string>> = {}) =>
  values.map((value) => ({ value, label: labels[value] ?? value }));
