import { dataOf, type RelayClient } from '@relay/client';
import { CliError } from '../../errors';

// A destination named on the command line by its id or by its name (unique in its rule). An id is passed on as it
// is, so a command that needs no other read works with the credential its own operation asks for (retrying a
// delivery needs webhooks:send, not rules:read); a name is looked up among the rule's destinations.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id of the rule's destination `ref` (an id, or a name looked up in the rule). */
export async function destinationIdOf(client: RelayClient, ruleId: string, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const { destinations } = await dataOf(client.GET('/rules/{id}/destinations', { params: { path: { id: ruleId } } }));
  const found = destinations.find((d) => d.name === ref);
  if (!found)
    throw new CliError(
      `rule ${ruleId} has no destination named "${ref}" (see \`relay rules destinations list ${ruleId}\`)`,
    );
  return found.id;
}

/** The id of destination `ref` of the event's rule: a name is looked up in the rule the event was stored for. */
export async function eventDestinationIdOf(client: RelayClient, eventId: string, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const event = await dataOf(client.GET('/events/{id}', { params: { path: { id: eventId } } }));
  if (!event.provider_id)
    throw new CliError(`event ${eventId} was not stored for a rule, so it has no destination named "${ref}"`);
  return destinationIdOf(client, event.provider_id, ref);
}

/**
 * The names of a rule's destinations by id, to show deliveries by name; empty when there is no rule or the caller
 * may not read its destinations (a key without rules:read sees the ids instead).
 */
export async function destinationNames(client: RelayClient, ruleId: string | null): Promise<Map<string, string>> {
  if (!ruleId) return new Map();
  const { data } = await client.GET('/rules/{id}/destinations', { params: { path: { id: ruleId } } });
  return new Map((data?.destinations ?? []).map((d) => [d.id, d.name]));
}
