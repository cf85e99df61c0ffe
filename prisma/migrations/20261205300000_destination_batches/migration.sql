-- A batch of destination outcomes in one call and one transaction. The worker stored each destination delivery's
-- outcome alone, a round trip and a commit per delivery, where the primary's outcomes go a batch at a time. This
-- runs relay_record_delivery (20261205200000_destination_statement_functions) for each element of the arrays, in
-- their order, so each delivery is recorded exactly as it was alone, and answers one row per delivery. A failure
-- fails the whole batch, which the worker then stores one delivery at a time.
CREATE FUNCTION "relay_record_deliveries"(uuid[], uuid[], uuid[], integer[], text[], integer[], text[], text[],
    integer[], timestamptz[], timestamptz[], "DeliveryStatus"[], timestamptz[], text[], text[], timestamptz[])
    RETURNS TABLE (delivery_id uuid, recorded integer, head_id uuid, destination_id uuid)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET jit = off AS $$
BEGIN
  FOR i IN 1 .. coalesce(cardinality($2), 0) LOOP
    RETURN QUERY SELECT $2[i], r.recorded, r.head_id, r.destination_id
    FROM relay_record_delivery($1[i], $2[i], $3[i], $4[i], $5[i], $6[i], $7[i], $8[i], $9[i], $10[i], $11[i], $12[i],
      $13[i], $14[i], $15[i], $16[i]) AS r;
  END LOOP;
END $$;
