import {
  dedupOptionSchema,
  deliveryPolicySchema,
  hookCreateSchema,
  orderingOptionSchema,
  outboundHeadersSchema,
  signingSecret,
  sourceSchema,
  transformPacingInput,
  transformTestSchema,
  unhealthyAfterSeconds,
  verificationOptionSchema,
  verificationSecret,
  verificationSecretRotateSchema,
} from '@relay/contracts';
import { RELAY_TOOLS } from '../tool-catalog';
import type { z } from 'zod';

const input = (name: string) => {
  const tool = RELAY_TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.input as Record<string, z.ZodType>;
};

/** The schema under its optional and nullable wrappers. */
const inner = (schema: z.ZodType | undefined): z.ZodType => {
  if (!schema) throw new Error('the tool has no such field');
  const def = schema.def as { type: string; innerType?: z.ZodType };
  return (def.type === 'optional' || def.type === 'nullable') && def.innerType ? inner(def.innerType) : schema;
};
const shapeOf = (schema: z.ZodType | undefined) => (inner(schema) as z.ZodObject).shape;
// `.describe()` clones a schema with the very same definition object: identity, not look-alike checks.
const sameChecks = (a: z.ZodType | undefined, b: z.ZodType) => expect(inner(a).def).toBe(inner(b).def);

// The MCP server takes its tools' input shapes from the API's own schemas (@relay/contracts), never a copy: a
// change to a field of the API changes the tool with it.
describe('MCP rule tools: inputs from the contracts', () => {
  it.each(['create_rule', 'update_rule'])('%s takes each rule option field from the contracts', (name) => {
    const fields = input(name);
    for (const [option, contract] of [
      ['dedup', dedupOptionSchema],
      ['verification', verificationOptionSchema],
      ['ordering', orderingOptionSchema],
      ['delivery_policy', deliveryPolicySchema],
    ] as const) {
      const shape = shapeOf(fields[option]);
      expect(Object.keys(shape)).toEqual(Object.keys(contract.shape));
      for (const [key, field] of Object.entries(contract.shape)) expect(shape[key]).toBe(field);
    }
    sameChecks(fields.verification_secret, verificationSecret);
    sameChecks(fields.unhealthy_after_seconds, unhealthyAfterSeconds);
    sameChecks(fields.set_headers, outboundHeadersSchema.shape.set);
    sameChecks(fields.remove_headers, outboundHeadersSchema.shape.remove);
    sameChecks(fields.source, sourceSchema);
    sameChecks(fields.signing_secret, signingSecret);
  });

  it('rotate_rule_verification_secret and create_hook take their fields from the contracts', () => {
    const rotate = input('rotate_rule_verification_secret');
    for (const [key, field] of Object.entries(verificationSecretRotateSchema.shape)) expect(rotate[key]).toBe(field);
    sameChecks(input('create_hook').trigger, hookCreateSchema.shape.trigger);
  });

  it.each(['create_rule', 'update_rule', 'create_destination', 'update_destination'])(
    '%s takes transform, forward_path_query, rate_limit and max_concurrency from the contracts',
    (name) => {
      const fields = input(name);
      for (const [key, contract] of Object.entries(transformPacingInput)) sameChecks(fields[key], contract);
      const rateLimit = shapeOf(fields.rate_limit);
      const contractRateLimit = shapeOf(transformPacingInput.rate_limit);
      for (const [key, field] of Object.entries(contractRateLimit)) expect(rateLimit[key]).toBe(field);
    },
  );

  it("test_transform takes the operation's fields from the contracts", () => {
    const fields = input('test_transform');
    for (const [key, field] of Object.entries(transformTestSchema.shape)) sameChecks(fields[key], field);
  });
});
