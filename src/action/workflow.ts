/**
 * The runner's workflow commands, as GitHub documents them ("Workflow commands for GitHub Actions"):
 * inputs from INPUT_* variables, `::error ...::` lines on stdout, outputs appended to $GITHUB_OUTPUT.
 *
 * Why not @actions/core: it loads its HTTP client, and with it undici, for OIDC tokens this Action never
 * asks for; that was 40% of the bundle and about 65 ms of every run's start. These few functions write
 * byte for byte what @actions/core 3 writes for the same calls (test/workflow.test.ts runs both).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { EOL } from 'node:os';

/** Where an annotation points; the field names of @actions/core's AnnotationProperties. */
export interface AnnotationProperties {
  title?: string;
  file?: string;
  startLine?: number;
  endLine?: number;
  startColumn?: number;
  endColumn?: number;
}

/** The value of the step's `with:` input, trimmed; '' when it is not given. */
export function getInput(name: string, options: { trim?: boolean } = {}): string {
  const value = process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '';
  return options.trim === false ? value : value.trim();
}

export function info(message: string): void {
  process.stdout.write(message + EOL);
}

export function warning(message: string, properties: AnnotationProperties = {}): void {
  issue('warning', message, properties);
}

export function error(message: string, properties: AnnotationProperties = {}): void {
  issue('error', message, properties);
}

/** An error annotation, and the step fails when the process exits. */
export function setFailed(message: string): void {
  process.exitCode = 1;
  error(message);
}

/** Appended to $GITHUB_OUTPUT as a heredoc whose delimiter cannot occur in the name or the value. */
export function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) {
    // Runners older than the output file (2022) read the deprecated command from stdout.
    process.stdout.write(EOL);
    process.stdout.write(command('set-output', { name }, value) + EOL);
    return;
  }
  if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  // A random UUID in a name or value is someone trying to end the heredoc early.
  if (name.includes(delimiter))
    throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
  if (value.includes(delimiter))
    throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8');
}

/** Appends markdown to the job summary ($GITHUB_STEP_SUMMARY), as `summary.addRaw(text).write()` does. */
export function appendSummary(markdown: string): void {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) {
    throw new Error(
      'Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.',
    );
  }
  appendFileSync(file, markdown, 'utf8');
}

function issue(level: 'error' | 'warning', message: string, properties: AnnotationProperties): void {
  const { title, file, startLine, endLine, startColumn, endColumn } = properties;
  const props = { title, file, line: startLine, endLine, col: startColumn, endColumn };
  process.stdout.write(command(level, props, message) + EOL);
}

/** `::name key=value,...::message`; properties with an empty value are left out, as the runner expects. */
function command(
  name: string,
  properties: Record<string, string | number | undefined>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`);
  return `::${name}${props.length ? ` ${props.join(',')}` : ''}::${escapeData(message)}`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
