import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseToken } from '@relay/core';
import type { McpRelay } from './mcp-harness';

type Result = Awaited<ReturnType<Awaited<ReturnType<McpRelay['connect']>>['callTool']>>;

/** A tool result's structured content, failing the test with the result's text when the call was an error. */
export function structured<T = Record<string, unknown>>(result: Result): T {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** The text of a tool result (its first text block): an error's message. */
export function textOf(result: Result): string {
  const [first] = (result as CallToolResult).content;
  return first?.type === 'text' ? first.text : '';
}

/** The id of the API key behind an `Authorization: Bearer ts_…` header, as audit entries name it. */
export async function keyIdOf(relay: McpRelay, authorization: string): Promise<string> {
  const parsed = parseToken(authorization.replace(/^Bearer /, ''));
  if (!parsed) throw new Error('not an API key header');
  return (await relay.pipeline.store.prisma.apiKey.findUniqueOrThrow({ where: { prefix: parsed.prefix } })).id;
}
