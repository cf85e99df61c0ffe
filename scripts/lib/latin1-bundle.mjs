// V8 keeps a script's source in the heap for the process's life, one byte per character only while every character
// is Latin-1: one dash in a comment doubled the api's ~1 MB bundle in every process (docs/performance.md, "What an
// idle process holds"). esbuild escapes other characters in strings and templates, but not in comments or regular
// expressions. So the characters of a line that is a `//` comment become one '?' per UTF-16 unit (a line keeps its
// length, and the source map its columns); one anywhere else fails the build, naming the line, since rewriting it
// could change what the code does.
import { readFile, writeFile } from 'node:fs/promises';

const NOT_LATIN1 = /[\u0100-\uffff]/;
const EVERY_NOT_LATIN1 = /[\u0100-\uffff]/g;
const COMMENT_LINE = /^\s*\/\//;

function latin1Source(source, file) {
  return source
    .split('\n')
    .map((line, index) => {
      if (!NOT_LATIN1.test(line)) return line;
      if (!COMMENT_LINE.test(line))
        throw new Error(`${file}:${index + 1}: a character beyond Latin-1 outside a comment; write it as an escape`);
      return line.replace(EVERY_NOT_LATIN1, '?');
    })
    .join('\n');
}

export async function latin1Bundle(file) {
  const source = await readFile(file, 'utf8');
  const latin1 = latin1Source(source, file);
  if (latin1 !== source) await writeFile(file, latin1);
}
