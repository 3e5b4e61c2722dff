/**
 * Each command's options and help, declared once. From one declaration come node:util parseArgs' config,
 * the command's `--help` (usage, description, options, exit status, example), its line in `groundgate
 * --help`, and its block of the README's command reference (test/help.test.ts keeps that block equal to
 * `referenceText`). Declaring a command:
 *
 *   const FREEZE = declareCommand({
 *     name: 'freeze',
 *     summary: 'write a lock for each gold set',              // its line in `groundgate --help`
 *     usage: 'groundgate freeze [options]',                    // printed after "Usage: "
 *     description: 'Writes a lock for ...',                    // one paragraph; wrapped at 100 columns
 *     options: {
 *       config: { short: 'c', type: 'string', arg: 'PATH', default: 'gates.yaml', help: 'gates file' },
 *       suite: { short: 's', type: 'string', multiple: true, arg: 'NAME', help: 'only this suite (repeatable)' },
 *       color: { type: 'boolean', negatable: true, help: 'force or disable colour' },
 *     },
 *     exitStatus: '0 every lock written, 2 usage, configuration or input error.',
 *     example: 'groundgate freeze --suite qa',
 *   });
 *
 *   export const freezeCommand = commandOf(FREEZE, async (argv, io) => {
 *     const { values, positionals, given } = parseOptions(FREEZE, argv);
 *     // values.config: string (it has a default); values.suite: string[] | undefined
 *   });
 *
 * parseOptions parses strictly, allows positionals and `--no-NAME` for every boolean, and adds -h/--help
 * (it throws HelpRequested: main prints the help and exits 0). A bad flag is a UsageError, which main ends
 * with "(see groundgate NAME --help)". A `default` goes to parseArgs too, so the value is never undefined;
 * `given` holds the long names written on the command line, defaults not included (for "--x with --y"
 * checks). A default that is not one value (e.g. "offenders: in gates.yaml, else 10") has no `default`:
 * say it in `help`. `sections` are extra blocks (e.g. extract's list of agents), printed as written.
 *
 * After changing a declaration, rewrite the README's reference with
 * `GROUNDGATE_WRITE_README=1 npx vitest run test/help.test.ts` (without it, that test fails on a stale one).
 */
import { parseArgs } from 'node:util';
import { didYouMean } from '../config/suggest.js';
import { UsageError } from '../errors.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Repeatable: the value is an array. */
  multiple?: boolean;
  /** The argument's name in the help (`--config PATH`); VALUE when unset. */
  arg?: string;
  help: string;
  /** Used when the option is absent, and shown in the help as "(default: …)" (not for booleans). */
  default?: string | boolean | string[];
  /** Shows `--no-NAME` in the help too (every boolean accepts it). */
  negatable?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** `-c PATH`, the gates file: declared once for every command that reads it. */
export const CONFIG_OPTION = {
  short: 'c',
  type: 'string',
  arg: 'PATH',
  default: 'gates.yaml',
  help: 'gates file',
} as const satisfies OptionSpec;

/** `-s NAME`, repeatable: the suites a command runs on; `help` says which it takes without one. */
export const suiteOption = (help: string) =>
  ({ short: 's', type: 'string', multiple: true, arg: 'NAME', help }) as const satisfies OptionSpec;

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  name: string;
  /** One line for `groundgate --help`. */
  summary: string;
  /** The usage line, without "Usage: ", e.g. `groundgate freeze [options]`. */
  usage: string;
  /** One paragraph (a blank line starts another); empty for none. */
  description: string;
  /** Further blocks between the description and the options, printed as written. */
  sections?: readonly { title: string; body: string }[];
  options: O;
  exitStatus: string;
  /** One command line (or a few), printed as written. */
  example: string;
}

/** Returns the declaration as given, keeping its option literals for parseOptions' types. */
export function declareCommand<const O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

/** Thrown by parseOptions on --help: main prints the command's help and exits 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
}

const HELP: OptionSpec = { type: 'boolean', short: 'h', help: 'show this help' };

type ParseConfig<O extends OptionSpecs> = {
  [K in keyof O]: {
    type: O[K]['type'];
    multiple: O[K]['multiple'] extends true ? true : false;
    short?: string;
  } & (O[K] extends { default: infer D } ? { default: D } : unknown);
};

type Parsed<O extends OptionSpecs> = ReturnType<
  typeof parseArgs<{
    options: ParseConfig<O>;
    allowPositionals: true;
    strict: true;
    tokens: true;
  }>
>;

export interface ParsedOptions<O extends OptionSpecs> {
  values: Parsed<O>['values'];
  positionals: string[];
  /** Long names of the options on the command line. */
  given: ReadonlySet<keyof O & string>;
}

/** Parses argv by the declaration; see the header for what it adds and throws. */
export function parseOptions<O extends OptionSpecs>(
  spec: CommandSpec<O>,
  argv: readonly string[],
): ParsedOptions<O> {
  const options: Record<
    string,
    { type: 'string' | 'boolean'; short?: string; multiple?: boolean; default?: OptionSpec['default'] }
  > = {};
  for (const [name, o] of Object.entries({ ...spec.options, help: HELP })) {
    options[name] = {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
      ...(o.default !== undefined ? { default: o.default } : {}),
    };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      allowNegative: true,
      strict: true,
      tokens: true,
    });
  } catch (err) {
    throw new UsageError(unknownOption(err, spec.options) ?? firstLine(err));
  }
  if (parsed.values.help) throw new HelpRequested();
  delete parsed.values.help;
  const given = new Set<keyof O & string>();
  for (const token of parsed.tokens) if (token.kind === 'option') given.add(token.name as keyof O & string);
  return { values: parsed.values as Parsed<O>['values'], positionals: parsed.positionals, given };
}

const firstLine = (err: unknown) =>
  (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '');

/** parseArgs' unknown option, worded as an unknown command is: with the closest option's name. */
function unknownOption(err: unknown, options: OptionSpecs): string | undefined {
  if ((err as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined;
  const name = /'([^']*)'/.exec((err as Error).message)?.[1];
  if (name === undefined) return undefined;
  const names = Object.entries({ ...options, help: HELP }).flatMap(([n, o]) =>
    o.negatable ? [`--${n}`, `--no-${n}`] : [`--${n}`],
  );
  return `unknown option ${JSON.stringify(name)}${name.startsWith('--') ? didYouMean(name, names) : ''}`;
}

const WIDTH = 100;
/** Labels longer than this put their help on the next line. */
const LABEL_MAX = 24;

/** The option as the help names it: `-c, --config PATH`, `    --color, --no-color`. */
function optionLabel(name: string, o: OptionSpec): string {
  const long =
    o.type === 'string' ? `--${name} ${o.arg ?? 'VALUE'}` : `--${name}${o.negatable ? `, --no-${name}` : ''}`;
  return `${o.short ? `-${o.short}, ` : '    '}${long}`;
}

/** The options as rows: label, then help wrapped in a column. */
function optionRows(options: OptionSpecs): string[] {
  const entries = Object.entries(options);
  const labels = entries.map(([name, o]) => optionLabel(name, o));
  const width = Math.min(LABEL_MAX, Math.max(...labels.map((l) => (l.length > LABEL_MAX ? 0 : l.length))));
  const column = 2 + width + 2;
  const lines: string[] = [];
  entries.forEach(([, o], i) => {
    const shown =
      o.default !== undefined && o.type === 'string' ? ` (default: ${[o.default].flat().join(', ')})` : '';
    const text = wrap(`${o.help}${shown}`, WIDTH - column);
    const label = `  ${labels[i]!}`;
    if (labels[i]!.length > width) lines.push(label);
    else lines.push(`${label.padEnd(column)}${text.shift()!}`);
    lines.push(...text.map((line) => `${' '.repeat(column)}${line}`));
  });
  return lines;
}

/** `text` wrapped at spaces into lines of at most `width` characters (a longer word keeps its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

const paragraphs = (text: string, width: number, indent = '') =>
  text
    .split(/\n\s*\n/)
    .map((p) =>
      wrap(p, width - indent.length)
        .map((l) => `${indent}${l}`)
        .join('\n'),
    )
    .join('\n\n');

/** The command's `--help`. */
export function helpText(spec: CommandSpec): string {
  const blocks = [
    `Usage: ${spec.usage}`,
    ...(spec.description ? [paragraphs(spec.description, WIDTH)] : []),
    ...(spec.sections ?? []).map((s) => `${s.title}:\n${s.body.replace(/\n+$/, '')}`),
    `Options:\n${optionRows({ ...spec.options, help: HELP }).join('\n')}`,
    `Exit status:\n${paragraphs(spec.exitStatus, WIDTH, '  ')}`,
    `Example:\n${spec.example
      .replace(/\n+$/, '')
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n')}`,
  ];
  return `${blocks.join('\n\n')}\n`;
}

/** The README's command reference: each command's usage, summary and options (test/help.test.ts). */
export function referenceText(specs: readonly CommandSpec[]): string {
  return specs
    .map((spec) => {
      const options = Object.keys(spec.options).length ? `\n${optionRows(spec.options).join('\n')}` : '';
      return `${spec.usage}\n  ${spec.summary}${options}`;
    })
    .join('\n\n');
}
