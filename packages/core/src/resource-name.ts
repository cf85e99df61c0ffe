// Names of rules (unique per organization) and hooks (unique per rule): stable handles for the dashboard's titles,
// configuration as code and plans, where an id changes with every install and several rules may share a source.
export const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const RESOURCE_NAME_MAX = 100;

/**
 * The name a rule or hook gets when none is given: its default (the source, the trigger) if free, else the
 * first free `<default>-2`, `<default>-3`, … — shortened so the suffix always fits.
 */
export function firstFreeName(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${wanted.slice(0, RESOURCE_NAME_MAX - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
