import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors';

export interface BodyOptions {
  data?: string;
  file?: string;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/** Parses the JSON a user gave, naming where it came from when it is not JSON. */
export function parseJsonBody(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${where} is not JSON: ${(error as Error).message}`);
  }
}

/** The webhook body of `relay send`: `--data '<json>'`, `--file path`, or `--file -` for stdin; exactly one. */
export async function readBody(opts: BodyOptions, stdin: NodeJS.ReadableStream): Promise<unknown> {
  if (opts.data !== undefined && opts.file !== undefined) throw new UsageError('give the body once: --data or --file');
  if (opts.data !== undefined) return parseJsonBody(opts.data, '--data');
  if (opts.file === '-') return parseJsonBody(await readAll(stdin), 'stdin');
  if (opts.file !== undefined) {
    const text = await readFile(opts.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${opts.file}: ${error.code ?? error.message}`);
    });
    return parseJsonBody(text, opts.file);
  }
  throw new UsageError("missing the body: --data '<json>', --file path, or --file - (stdin)");
}
