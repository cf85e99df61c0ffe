/**
 * A condition a kept plan must check on the rows it found but never look rows up by: `(condition) IS TRUE`, which no
 * index matches. The worker's statements keep plans made when a connection first runs them (event.sql.ts,
 * delivery-statement.sql.ts), often while the tables are small, when an index on a column every row shares (the
 * organization, a status) costs the planner as little as the key that leads to the row. Kept, such a plan reads an
 * entry per queued row or per row of the organization at every call, so each delivery costs more the longer the
 * backlog. Written with this, the organization and status tests leave the key as the only way in. (NULL counts as
 * false, as it does in WHERE.)
 */
export const unindexed = (condition: string) => `(${condition}) IS TRUE`;
