import { dataOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';

// Configuration as code (docs/config-as-code.md): what `relay export` writes, for an assistant to read. Read-only:
// applying a file stays with `relay apply`, where a person sees the plan and its secrets come from their own place.

const exportConfiguration = defineTool({
  name: 'export_configuration',
  title: "Export the organization's configuration",
  description:
    "The organization's configuration as one document (the file `relay export` writes and `relay apply` reads): " +
    'rules with every option, their destinations and hooks, the default target, and the notification settings ' +
    'when the caller may manage the organization. Secrets are never in it, only `${env:…}` references. ' +
    '`$schema` names the JSON Schema of the format.',
  operation: 'GET /api/config/export',
  input: {},
  output: {
    document: z.record(z.string(), z.unknown()).describe('The configuration document (JSON form of the file).'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(_args, { client }) {
    return { document: await dataOf(client.GET('/api/config/export')) };
  },
});

export const CONFIG_TOOLS: readonly AnyRelayTool[] = [exportConfiguration];
