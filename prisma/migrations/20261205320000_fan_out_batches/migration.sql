-- A batch of events' fan-outs in one call and one transaction, as the outcomes of destination deliveries are
-- recorded (20261205300000_destination_batches): the fan-out was each event's own round trip and commit, the largest
-- share of Postgres' time in a drain of a rule with destinations. Runs relay_fan_out for each event of $2 (its
-- organization $1), in order, with its slice of the matched destinations $4 and their new delivery ids $5 ($3 says
-- how many of them are the event's), so each event is fanned out exactly as it was alone. Answers relay_fan_out's
-- rows, each with its event's place in $2 (from 1). A failure fails the batch, which the worker then fans out one event at a time.
CREATE FUNCTION "relay_fan_out_many"(uuid[], uuid[], integer[], uuid[], uuid[])
    RETURNS TABLE (item integer, id uuid, destination_id uuid, status text, next_attempt_at timestamp(3), what text)
    LANGUAGE plpgsql VOLATILE SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off AS $$
DECLARE
  pos integer := 1;
BEGIN
  FOR i IN 1 .. coalesce(cardinality($2), 0) LOOP
    RETURN QUERY SELECT i, f.id, f.destination_id, f.status, f.next_attempt_at, f.what
    FROM relay_fan_out($1[i], $2[i], coalesce($4[pos:pos + $3[i] - 1], '{}'), coalesce($5[pos:pos + $3[i] - 1], '{}'))
      AS f;
    pos := pos + $3[i];
  END LOOP;
END $$;
