/** The statements of a migration script, split at the `;` outside strings, dollar quotes and comments. */
export function splitSqlStatements(script: string): string[];
