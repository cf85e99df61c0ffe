import type { NewAttempt } from '@relay/db';
import type { DeliveryPacing } from '../delivery-pacing';
import { payloadOf } from '../delivery-transform';
import type { FairGate } from '../fair-gate';
import { sendSignedRequest, type SignedRequestDeps } from '../signed-request';
import type { Delivery, Sent } from './delivery';
import { attemptFields } from './job-step';

export interface SendDeps extends SignedRequestDeps {
  /** The gate prepare acquired the delivery's slot from; absent: no fair share. */
  fairGate?: FairGate | undefined;
  /** The limiter prepare's pacing grant came from: released here and told the answer. */
  pacing?: DeliveryPacing | undefined;
  now: () => number;
}

// One request of a prepared delivery: signed with its rule's secrets, with the rule's headers and time-out.
// It never throws for the target's sake (a refused or unreachable target is an outcome), and always
// releases the fair share's slot prepare acquired, whatever happens.
export function createSend(deps: SendDeps) {
  return async function send(delivery: Delivery): Promise<Sent> {
    const { event } = delivery;
    // The stored transform's request, if any; the URL with the path and query when the rule forwards them.
    const payload = payloadOf(event, event.transformed, delivery.targetUrl, delivery.forwardPathQuery);
    const targetUrl = payload.url;
    // A time-out frees the slot but is no sign the origin flows again (its retries must not crowd others out).
    let answered = false;
    try {
      const sent = await sendSignedRequest(
        deps,
        payload.event,
        {
          url: targetUrl,
          ruleId: delivery.ruleId,
          ruleTarget: true,
          timeoutMs: delivery.policy.timeoutMs,
          span: delivery.span,
          attemptNumber: event.attemptCount + 1,
        },
        deps.now,
      );
      const { outcome } = sent;
      if (delivery.pacing) await deps.pacing?.heard(delivery.pacing, outcome);
      answered = outcome.kind === 'response';
      const error =
        outcome.kind === 'response'
          ? null
          : `${outcome.kind === 'network' ? outcome.code : outcome.kind}: ${outcome.message}`;
      const attempt: NewAttempt = {
        attemptNumber: event.attemptCount + 1,
        kind: 'main',
        targetUrl,
        ...attemptFields(sent, error),
      };
      return { attempt, outcome };
    } finally {
      deps.fairGate?.release(delivery.origin, answered);
      if (delivery.pacing) await deps.pacing?.release(delivery.pacing);
    }
  };
}
