import { z } from 'zod';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../http/idempotency';
import type { AnyOperation } from '../http/operation';

/** What the document reads of an operation declaration (the handler is not its business). */
type Operation = Omit<AnyOperation<unknown>, 'handler'>;

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  return rest;
}

/** `/events/:id` → `/events/{id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

function parameters(op: Operation): Json[] {
  const list: Json[] = [];
  for (const [where, schema] of [
    ['path', op.params],
    ['query', op.query],
  ] as const) {
    if (!schema) continue;
    const shape: Record<string, z.ZodType> = schema.shape;
    for (const [name, field] of Object.entries(shape)) {
      const fieldSchema = jsonSchema(field, 'input');
      list.push({
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        schema: fieldSchema,
        ...(field.description ? { description: field.description } : {}),
      });
    }
  }
  if (op.idempotent) list.push(IDEMPOTENCY_KEY_PARAMETER);
  return list;
}

const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  description:
    'Makes a retry of this request safe for 24 hours (IDEMPOTENCY_TTL_SECONDS), per credential: the same key and ' +
    `request answer the first answer again, with \`${REPLAYED_HEADER}: true\`, without acting again. ` +
    'Answers 2xx and 4xx are kept; after a 5xx the key may be retried. A secret shown once is left out of a replay, ' +
    'which carries `secret_redacted: true` instead.',
};

/** A declared answer with one more sentence, or the problem alone when none is declared. */
function withCase(declared: unknown, text: string): Json {
  const spec = declared as { description: string } | undefined;
  return spec ? { ...spec, description: `${spec.description} ${text}` } : problem(text);
}

function idempotencyResponses(out: Json): void {
  for (const [status, spec] of Object.entries(out)) {
    if (!status.startsWith('2')) continue;
    const headers = {
      [REPLAYED_HEADER]: { description: 'Present (`true`) on a replay.', schema: { type: 'string', enum: ['true'] } },
    };
    out[status] = { ...(spec as Json), headers };
  }
  out['409'] = withCase(
    out['409'],
    'A request with the same Idempotency-Key is still running (`idempotency_in_progress`).',
  );
  out['422'] = withCase(out['422'], 'The Idempotency-Key was used with another request (`idempotency_key_reused`).');
}

function responses(op: Operation): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    out[status] = spec.schema
      ? {
          description: spec.description,
          content: { [spec.contentType ?? 'application/json']: { schema: jsonSchema(spec.schema, 'output') } },
        }
      : { description: spec.description };
  }
  if ((op.params || op.query || op.body || op.rawBody) && !out['400'])
    out['400'] = problem('The request is not valid (`validation_failed`, with every field error).');
  if (op.access !== 'public') {
    out['401'] ??= problem('No valid credentials (`unauthenticated`).');
    out['403'] ??= problem('Wrong role or missing API-key scope (`forbidden`).');
  }
  if (op.params && !out['404']) out['404'] = problem("No such resource in the caller's organization (`not_found`).");
  if (op.idempotent) idempotencyResponses(out);
  return out;
}

function operationObject(op: Operation): Json {
  const rule = op.access === 'public' || op.access === 'operator' ? null : op.access;
  return {
    operationId: `${op.method}${op.path
      .replace(/\{\*\w+\}/g, '')
      .replace(/[/:-]+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(rule
      ? {
          security: [{ bearer: [] }, { basic: [] }, { session: [] }],
          'x-required-role': rule.role,
          'x-api-key-scope': rule.scope,
        }
      : op.access === 'operator'
        ? { security: [{ session: [] }], 'x-required-role': 'platform-operator' }
        : { security: [] }),
    ...(parameters(op).length ? { parameters: parameters(op) } : {}),
    // A body whose schema takes undefined (a default) may be left out altogether: POST /events/{id}/retry.
    ...(op.body
      ? {
          requestBody: {
            required: !op.body.safeParse(undefined).success,
            content: { 'application/json': { schema: jsonSchema(op.body, 'input') } },
          },
        }
      : {}),
    ...(op.rawBody
      ? {
          requestBody: {
            required: true,
            description: op.rawBody.description,
            content: { [op.rawBody.contentType]: { schema: {} } },
          },
        }
      : {}),
    responses: responses(op),
  };
}

/** The OpenAPI 3.1 document of the API's operations (the catalog's ALL_OPERATIONS: composition/catalog.ts). */
export function buildOpenApiDocument(
  operations: readonly Operation[],
  options: { version: string; serverUrl?: string | undefined },
): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const key = openApiPath(op.path);
    paths[key] = { ...paths[key], [op.method]: operationObject(op) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Webhook Relay API',
      version: options.version,
      description:
        'Ingest, delivery history, rules and hooks, identity and audit. ' +
        'Errors are RFC 9457 problem documents with a stable `code`.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key or personal token, `ts_<prefix>_<secret>`.',
        },
        basic: { type: 'http', scheme: 'basic' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'relay_session',
          description: 'From POST /api/auth/login (`__Host-relay_session` when SESSION_COOKIE_SECURE).',
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string', description: 'Stable machine-readable error code.' },
            request_id: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  field: { type: 'string' },
                  path: { type: 'string', description: 'The same place as a JSON pointer (RFC 6901).' },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  };
}
