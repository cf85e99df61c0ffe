// A file of its own (as stored-event.ts is): the destination repository names it too, and delivery.repository.ts
// imports the destination repository, so neither may import it from the other.

/** A delivery whose status changed, as the live feed names it. */
export interface DeliveryChange {
  id: string;
  eventId: string;
  destinationId: string;
  attemptCount: number;
}
