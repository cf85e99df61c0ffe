import { dataOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';

// Getting webhooks into the relay: sending one through it (POST /api/send) and the public ingest URLs.

const sendWebhook = defineTool({
  name: 'send_webhook',
  title: 'Send a webhook',
  description:
    'Sends a webhook through the relay: it is stored as an event and delivered with retries like any ingested ' +
    "one. Two modes: give `rule_id` to use that active rule's source and target (rule mode), or `source` " +
    'with an optional `target_url` (manual mode; without a target_url the default target is used). `body` is any ' +
    'JSON value, delivered as its JSON text. Returns the event id: follow it with get_event.',
  operation: 'POST /api/send',
  input: {
    rule_id: z.uuid().optional().describe('Rule mode: an active rule (from list_rules). Not with source.'),
    source: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, '1-64 letters, digits, ".", "_" or "-"')
      .optional()
      .describe('Manual mode: the source the event is stored under, e.g. "test". Not with rule_id.'),
    target_url: z
      .string()
      .trim()
      .max(2048)
      .optional()
      .describe('Manual mode only: http(s) URL to deliver to; omitted or empty for the default target.'),
    body: z
      .unknown()
      .refine((value) => value !== undefined, 'body is required: any JSON value, e.g. {"ping": true}.')
      .describe('The payload: any JSON value (object, array, string, number, boolean or null).'),
  },
  output: {
    id: z.string().describe('The stored event.'),
    status: z.string(),
    source: z.string(),
    target_url: z.string(),
    rule_id: z.string().nullable(),
    link: z.string(),
  },
  annotations: { destructiveHint: false },
  async run({ rule_id, source, target_url, body }, { client, link }) {
    // Checked here so that the assistant learns which mode it mixed up, not the API's union validation error.
    if ((rule_id === undefined) === (source === undefined)) {
      throw new Error('Give either rule_id (rule mode) or source (manual mode), not both and not neither.');
    }
    if (rule_id !== undefined && target_url !== undefined) {
      throw new Error("target_url is for manual mode only: rule mode delivers to the rule's target.");
    }
    const request =
      rule_id !== undefined
        ? { provider_id: rule_id, body }
        : { source: source as string, target_url: target_url ?? '', body };
    const sent = await dataOf(client.POST('/api/send', { body: request }));
    return {
      id: sent.id,
      status: sent.status,
      source: sent.source,
      target_url: sent.target_url,
      rule_id: sent.provider_id,
      link: link(`/events/${sent.id}`),
    };
  },
});

const USAGE =
  'Senders POST webhooks (JSON bodies) to `<ingest_url><source>` (source_url_template), e.g. ' +
  '`…/stripe`; or to ingest_url with an X-Webhook-Source header; without either, the default source is used. ' +
  'The relay answers 202 with the event id and delivers it by the active rule for that source (list_rules), ' +
  'else to the default target. A source may not be one of reserved_sources.';

const getIngestEndpoint = defineTool({
  name: 'get_ingest_endpoint',
  title: 'Get the ingest endpoint',
  description:
    "The public URLs webhook senders should post to (the organization's ingest URL, the per-source URL " +
    'template, every host it receives on including verified custom domains) and how to use them. Use it when ' +
    'configuring a sender (Stripe, GitHub, …) to send to the relay.',
  // Public, like the REST operation: every credential may ask where webhooks go (its organization's URLs).
  operation: 'GET /config/endpoint',
  input: {},
  output: {
    ingest_url: z.string().nullable().describe('null: this organization receives no webhooks now.'),
    source_url_template: z.string().nullable(),
    ingest_urls: z.array(z.string()),
    reserved_sources: z.array(z.string()),
    organization: z.string().nullable().describe("The organization's slug."),
    usage: z.string(),
    link: z.string().describe('The settings page, which shows these URLs.'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(_args, { client, link }) {
    const endpoint = await dataOf(client.GET('/config/endpoint'));
    return {
      ingest_url: endpoint.ingest_url,
      source_url_template: endpoint.source_url_template,
      ingest_urls: endpoint.ingest_urls,
      reserved_sources: endpoint.reserved_sources,
      organization: endpoint.organization?.slug ?? null,
      usage:
        endpoint.ingest_url === null
          ? 'No URL accepts webhooks for this organization now (no host of its own, or its subscription is ' +
            'suspended or canceled).'
          : USAGE,
      link: link('/settings'),
    };
  },
});

export const SEND_TOOLS: readonly AnyRelayTool[] = [sendWebhook, getIngestEndpoint];
