import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

// axe-core's own bundle, injected into the page under test (it runs in the browser, against the rendered DOM).
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One violation as a failing test prints it: which rule, how bad, and where. */
export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/**
 * Runs axe-core on what the page shows now and answers its serious and critical violations (the ones the dashboard
 * must not have; minor and moderate ones are left to review). WCAG 2.1 A and AA rules, plus axe's best practices.
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.addScriptTag({ content: AXE_SOURCE });
  const results = await page.evaluate<AxeResults>(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })`,
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
}
