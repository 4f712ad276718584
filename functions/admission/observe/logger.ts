// The stack's log: one JSON line per event in the Powertools Logger's format (level, message, timestamp,
// service, the Lambda context's keys, sampling_rate, xray_trace_id, then the line's own fields; empty ones
// left out; errors as { name, location, message, stack, cause }, stacks mapped to the TypeScript sources),
// INFO to stdout, WARN and ERROR to stderr, as that logger writes them. Always one line: Powertools indents
// under POWERTOOLS_DEV, which splits an event into many lines in CloudWatch. Written here rather than
// through @aws-lambda-powertools/logger: the stack writes three kinds of line, and that logger's load and
// construction (node:console, node:crypto) were a measurable part of every cold start.
// test/unit/logger.test.ts holds each line to the real one's.
import type { Context } from 'aws-lambda';
import { getNumberFromEnv, getStringFromEnv, getXRayTraceIdFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { sourceMappedStack } from './source-mapped-stack.js';
import { writeStdoutLine } from './stdout-lines.js';

/** The `service` of every log line, and the dimension of that name on every metric. */
export const SERVICE_NAME = 'portcullis';

/** Powertools' thresholds: a line is written when its level's threshold is at least the logger's. */
const THRESHOLDS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
export type LogLevelName = keyof typeof THRESHOLDS;
export type LogFields = Record<string, unknown>;

const thresholdOf = (name: string): number | undefined => (Object.hasOwn(THRESHOLDS, name) ? THRESHOLDS[name as LogLevelName] : undefined);

/**
 * As Powertools reads it: Lambda's own log level (AWS_LAMBDA_LOG_LEVEL, set by its advanced logging
 * controls; FATAL is CRITICAL) when set, else POWERTOOLS_LOG_LEVEL (or LOG_LEVEL), else INFO. Names are
 * upper case; any other value is ignored.
 */
function levelFromEnv(): number {
  const lambdaLevel = getStringFromEnv({ key: 'AWS_LAMBDA_LOG_LEVEL', defaultValue: '' });
  const chosen =
    getStringFromEnv({ key: 'POWERTOOLS_LOG_LEVEL', defaultValue: '' }) || getStringFromEnv({ key: 'LOG_LEVEL', defaultValue: '' });
  return thresholdOf(lambdaLevel === 'FATAL' ? 'CRITICAL' : lambdaLevel) ?? thresholdOf(chosen) ?? THRESHOLDS.INFO;
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** The first `(file:line:column)` of a stack, as `file:line`. */
function locationOf(stack: string | undefined): string {
  const match = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/m.exec(stack ?? '');
  return match ? `${match[1]}:${Number(match[2])}` : '';
}

function formatError(error: Error): Record<string, unknown> {
  const { name, message, stack: bundledStack, cause, ...attributes } = error as Error & Record<string, unknown>;
  const stack = typeof bundledStack === 'string' ? sourceMappedStack(bundledStack) : bundledStack;
  return { name, location: locationOf(stack), message, stack, cause: cause instanceof Error ? formatError(cause) : cause, ...attributes };
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return formatError(value);
  return typeof value === 'bigint' ? value.toString() : value;
}

/** INFO lines are the per-request decision: plain JSON, the replacer only if that throws (a bigint). */
function decisionJson(line: LogFields): string {
  try {
    return JSON.stringify(line);
  } catch {
    return JSON.stringify(line, jsonReplacer);
  }
}

export class StructuredLogger {
  #level = levelFromEnv();
  readonly #samplingRate = getNumberFromEnv({ key: 'POWERTOOLS_LOGGER_SAMPLE_RATE', defaultValue: 0 });
  #context: LogFields | undefined;
  #invocations = 0;

  /** The threshold in force (lower writes more). */
  get level(): number {
    return this.#level;
  }

  setLogLevel(name: LogLevelName): void {
    this.#level = THRESHOLDS[name];
  }

  getLevelName(): LogLevelName {
    return (Object.keys(THRESHOLDS) as LogLevelName[]).find((name) => THRESHOLDS[name] === this.#level)!;
  }

  /** The invocation's Lambda context, on every line until the next; the first invocation is the cold start. */
  addContext(context: Context): void {
    const keys: LogFields = {
      cold_start: this.#invocations++ === 0,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    // Empty keys are left out here, once per invocation, rather than on every line.
    this.#context = Object.fromEntries(Object.entries(keys).filter(([, value]) => !isEmpty(value)));
  }

  info(message: string, fields?: LogFields): void {
    this.#write('INFO', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.#write('WARN', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.#write('ERROR', message, fields);
  }

  #write(level: 'INFO' | 'WARN' | 'ERROR', message: string, fields: LogFields | undefined): void {
    if (this.#level > THRESHOLDS[level]) return;
    const line: LogFields = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: SERVICE_NAME,
      ...this.#context,
      sampling_rate: this.#samplingRate,
    };
    const traceId = getXRayTraceIdFromEnv();
    if (traceId) line.xray_trace_id = traceId;
    for (const key in fields) if (!isEmpty(fields[key])) line[key] = fields[key];
    if (level === 'INFO') writeStdoutLine(`${decisionJson(line)}\n`);
    else process.stderr.write(`${JSON.stringify(line, jsonReplacer)}\n`);
  }
}

export const logger = new StructuredLogger();
