import type { OptionsDraft } from './rule-options-draft';
import type { Rule } from './rule-types';

/**
 * What each option section of a form gets: the draft, a setter of some of its fields, the last error. Sections a
 * destination shares with the rule take the narrower draft (`SectionProps<TargetOptionsDraft>`).
 */
export interface SectionProps<D = OptionsDraft> {
  draft: D;
  set: (patch: Partial<D>) => void;
  /** The failed save, whose problem document names fields (`dedup.header`). */
  error: unknown;
  /** The rule being edited, or the destination's rule; undefined for a new rule. */
  rule?: Rule | undefined;
}

/** NativeSelect's data from values, labelled as they are unless a label is given. */
export const choices = <T extends string>(values: readonly T[], labels: Partial<Record<T, string>> = {}) =>
  values.map((value) => ({ value, label: labels[value] ?? value }));
