import ora from 'ora';
import { UsageError } from '../errors';
import { colorsFor, type Colors } from './colors';

export interface Streams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  yes: boolean;
  noColor: boolean;
  forceColor: boolean;
  ci: boolean;
}

export interface Spinner {
  update(text: string): void;
  stop(): void;
}

/**
 * Where a command's output goes. Results on stdout (a JSON document with --json, a table or text otherwise);
 * notes, spinners and confirmations on stderr, so `relay … --json | jq` always gets clean JSON.
 */
export interface Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly colors: Colors;
  /** The command's result: `value` as JSON with --json, else what `human` makes of it. */
  result<T>(value: T, human: (value: T) => string): void;
  /** One message of a stream: a JSON line with --json, else the human line. */
  streamItem<T>(value: T, human: (value: T) => string): void;
  /** A note for people on stderr (not with --quiet or --json). */
  note(text: string): void;
  /** A spinner on stderr, only on a terminal, outside CI and without --quiet/--json; otherwise a no-op. */
  spinner(text: string): Spinner;
  /** Asks before a destructive action; --yes answers yes, and without a terminal --yes is required. */
  confirm(question: string): Promise<boolean>;
}

const noSpinner: Spinner = { update: () => {}, stop: () => {} };

export function createOutput(streams: Streams, options: OutputOptions): Output {
  const colors = colorsFor({
    isTty: Boolean(streams.stdout.isTTY),
    noColor: options.noColor,
    forceColor: options.forceColor,
  });
  const errColors = colorsFor({
    isTty: Boolean(streams.stderr.isTTY),
    noColor: options.noColor,
    forceColor: options.forceColor,
  });
  const write = (text: string) => streams.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const animated = Boolean(streams.stderr.isTTY) && !options.ci && !options.quiet && !options.json;
  return {
    json: options.json,
    quiet: options.quiet,
    colors,
    result(value, human) {
      if (options.json) write(JSON.stringify(value, null, 2));
      else {
        const text = human(value);
        if (text) write(text);
      }
    },
    streamItem(value, human) {
      write(options.json ? JSON.stringify(value) : human(value));
    },
    note(text) {
      if (!options.quiet && !options.json) streams.stderr.write(`${errColors.dim(text)}\n`);
    },
    spinner(text) {
      if (!animated) return noSpinner;
      const spinner = ora({ text, stream: streams.stderr, discardStdin: false }).start();
      return { update: (t) => (spinner.text = t), stop: () => spinner.stop() };
    },
    async confirm(question) {
      if (options.yes) return true;
      if (!streams.stdin.isTTY || !streams.stderr.isTTY)
        throw new UsageError(`${question} Not a terminal: pass --yes to confirm.`);
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message: question, default: false }, { input: streams.stdin, output: streams.stderr });
    },
  };
}
