import { compileFilter, FILTER_MAX_BYTES, FILTER_MAX_DEPTH } from '@relay/core';
import { z } from 'zod';

// A routing filter (docs/routing.md) as every API input takes it: a rule's `filter` now, a destination's
// and a dry run's later. Checked by the same compiler the worker runs, so what is saved is what evaluates;
// each problem is reported at its own path (`filter.body.amount.$gtt`).
export const routingFilterSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const compiled = compileFilter(value);
    if (compiled.ok) return;
    for (const error of compiled.errors) ctx.addIssue({ code: 'custom', message: error.message, path: error.at });
  })
  .describe(
    'A routing filter over the webhook as received (`body`, `headers` with lower-cased names, `path`, `query`): ' +
      'a Hookdeck-style JSON filter (`{"body": {"amount": {"$gte": 100}}}`; operators $eq $neq $in $nin $gt $gte ' +
      '$lt $lte $startsWith $endsWith $exist $and $or $not) or `{"cel": "<expression>"}`. At most ' +
      `${FILTER_MAX_BYTES / 1024} KB and depth ${FILTER_MAX_DEPTH}; see docs/routing.md.`,
  );
