export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export const median = (values) =>
  percentile(
    values.filter((v) => v !== null && v !== undefined),
    50,
  );

export function summarize(values) {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return { median: null, min: null, max: null };
  return { median: median(present), min: Math.min(...present), max: Math.max(...present) };
}

export const round = (value, digits = 1) =>
  value === null || value === undefined ? null : Number(value.toFixed(digits));
