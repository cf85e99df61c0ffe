// Splits a migration script into statements at the `;` that end them, and only those: a `;` inside a string
// ('…', E'…' with backslash escapes), a quoted identifier ("…"), a dollar-quoted body ($$…$$, $fn$…$fn$: DO
// blocks, function bodies) or a comment (-- …, nested /* … */) is part of its statement. @prisma/adapter-pg
// splits at every `;`, which broke all of those (scripts/db.mjs installs this instead). Pieces holding nothing
// but comments and white space are left out: there is nothing to run.

const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/;

/** @param {string} script @returns {string[]} */
export function splitSqlStatements(script) {
  const statements = [];
  let start = 0;
  let code = false; // whether the current piece has anything but comments and white space
  let i = 0;
  const end = (at) => {
    const text = script.slice(start, at).trim();
    if (code && text) statements.push(text);
    start = at + 1;
    code = false;
  };
  while (i < script.length) {
    const ch = script[i];
    const next = script[i + 1];
    if (ch === '-' && next === '-') {
      const newline = script.indexOf('\n', i);
      i = newline === -1 ? script.length : newline + 1;
    } else if (ch === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < script.length && depth > 0) {
        const pair = script.slice(i, i + 2);
        if (pair === '/*' || pair === '*/') {
          depth += pair === '/*' ? 1 : -1;
          i += 2;
        } else i += 1;
      }
    } else if (ch === "'" || ch === '"') {
      // E'…' (and e'…') strings take backslash escapes; in the others a quote is doubled to escape it.
      const backslashes = ch === "'" && /[eE]/.test(script[i - 1] ?? '') && !/[\w$]/.test(script[i - 2] ?? '');
      code = true;
      i += 1;
      while (i < script.length) {
        if (backslashes && script[i] === '\\') i += 2;
        else if (script[i] === ch && script[i + 1] === ch) i += 2;
        else if (script[i] === ch) break;
        else i += 1;
      }
      i += 1;
    } else if (ch === '$' && !/[\w$]/.test(script[i - 1] ?? '')) {
      // A dollar quote opens with $tag$ (not after an identifier character: `a$1$` is not one) and closes
      // with the same tag; `$1` (a parameter) is no tag.
      const tag = DOLLAR_TAG.exec(script.slice(i))?.[0];
      code = true;
      if (!tag) i += 1;
      else {
        const close = script.indexOf(tag, i + tag.length);
        i = close === -1 ? script.length : close + tag.length;
      }
    } else if (ch === ';') {
      end(i);
      i += 1;
    } else {
      if (!/\s/.test(ch)) code = true;
      i += 1;
    }
  }
  end(script.length);
  return statements;
}
