-- The per-batch functions keep one plan per connection, as their plan tests assume (kept-plan-scans.ts makes them
-- with plan_cache_mode = force_generic_plan). Left to plan_cache_mode auto, Postgres kept planning them at every
-- call whenever a custom plan looked cheaper: with the batch's arrays known, a batch of 2 is estimated cheaper than
-- the generic plan's default, so at the low rates where batches are small (half the sustainable rate: 2 to 3 events a
-- statement) every call was planned. The ingest statement for 2 events took 0.58 to 0.63 ms so and 0.29 to 0.31 ms
-- with its plan kept, and the same at 20 events (docs/performance.md, "Plans kept at every batch size").
ALTER FUNCTION "relay_insert_events" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_load_events" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_record_outcomes" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_fan_out" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_fan_out_many" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_record_delivery" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_record_deliveries" SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION "relay_delivery_blocked" SET plan_cache_mode = force_generic_plan;
