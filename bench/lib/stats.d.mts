// Types of stats.mjs for the benches written in TypeScript (the bench's own code is plain JavaScript).
export function percentile(values: readonly number[], p: number): number | null;
export function median(values: ReadonlyArray<number | null | undefined>): number | null;
export function summarize(values: ReadonlyArray<number | null | undefined>): {
  median: number | null;
  min: number | null;
  max: number | null;
};
export function round(value: number | null | undefined, digits?: number): number | null;
