import type { MemberOperation, RelayClient } from '@relay/client';
import type { z, ZodRawShape } from 'zod';

/** What a tool's run gets: the typed REST client (with the caller's credential) and links into the dashboard. */
export interface ToolContext {
  client: RelayClient;
  /** An absolute link to a dashboard page: `link('/events/0192…')` → `https://relay.example.com/app/events/0192…`. */
  link: (path: string) => string;
}

export interface ToolHints {
  /** Reads only. */
  readOnlyHint?: boolean;
  /** Deletes or acts on many objects at once. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  idempotentHint?: boolean;
}

/**
 * One MCP tool over one REST operation. `operation` names it as the typed client calls it (`'POST /rules'`); what
 * the tool asks of its caller is that operation's row of the generated access map (`accessOf`, least role and
 * API-key scope): a credential without it does not see the tool, and a call to it is refused before anything runs.
 */
export interface RelayTool<I extends ZodRawShape = ZodRawShape, O extends ZodRawShape = ZodRawShape> {
  /** snake_case verb: `list_events`, `retry_event`. */
  name: string;
  title: string;
  /** What it does and when to use it, for an assistant choosing among tools. */
  description: string;
  /** The REST operation the tool acts through; its access is the API's, never written here. */
  operation: MemberOperation;
  input: I;
  output: O;
  annotations: ToolHints;
  /** The structured result (matching `output`); ids and `link`s to the dashboard pages of what it names. */
  run(args: z.infer<z.ZodObject<I>>, ctx: ToolContext): Promise<z.infer<z.ZodObject<O>>>;
}

/** Declares a tool with its types inferred from its schemas. */
export const defineTool = <I extends ZodRawShape, O extends ZodRawShape>(tool: RelayTool<I, O>): RelayTool<I, O> =>
  tool;

/** Any tool, for catalogs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a catalog holds tools of every input and output shape
export type AnyRelayTool = RelayTool<any, any>;
