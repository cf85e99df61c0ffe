import { AppError } from '@relay/core';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const tag = 'mcp';
const stateless = 'The MCP endpoint is stateless Streamable HTTP: send JSON-RPC messages with POST.';
const bearer = 'The MCP endpoint takes `Authorization: Bearer ts_…` (an API key or a personal token).';

// `/mcp`: the Model Context Protocol over Streamable HTTP (no deprecated HTTP+SSE transport). Any member's bearer
// token may connect; which tools it then sees and may call is decided per tool by the same authorization table.
export const mcpOperations = [
  defineOperation({
    method: 'post',
    path: '/mcp',
    tag,
    access: { role: 'viewer', scope: null },
    summary: 'Model Context Protocol (Streamable HTTP, stateless): tools over this API for assistants',
    description:
      'JSON-RPC messages of MCP (initialize, tools/list, tools/call, resources/*, prompts/*). Needs ' +
      '`Authorization: Bearer ts_…` (an API key or a personal token); the tools offered are those the ' +
      "credential's role and scopes allow. Clients send `Accept: application/json, text/event-stream`. " +
      'See docs/mcp.md.',
    rawBody: { contentType: 'application/json', description: 'A JSON-RPC request, notification or batch.' },
    responses: {
      200: { description: 'The JSON-RPC response.', contentType: 'application/json', schema: z.unknown() },
      202: { description: 'A notification or response was accepted.' },
      401: { description: 'No bearer token, or one that is invalid, expired or revoked.' },
      406: { description: 'The Accept header does not allow application/json and text/event-stream.' },
    },
    // A browser's session cookie is not a way in: assistants hold a key they were given on purpose.
    bearerOnly: bearer,
    handler: async ({ services, req, res }) => {
      await services.mcp.handle(req, res);
      return undefined;
    },
  }),
  ...(['get', 'delete'] as const).map((method) =>
    defineOperation({
      method,
      path: '/mcp',
      tag,
      access: { role: 'viewer', scope: null },
      bearerOnly: bearer,
      summary: `Not used by this stateless MCP endpoint (${method.toUpperCase()} answers 405)`,
      responses: { 405: { description: stateless } },
      handler: () => {
        throw new AppError('method_not_allowed', stateless);
      },
    }),
  ),
];
