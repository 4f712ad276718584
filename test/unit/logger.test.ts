// The stack's log lines are written by our own logger, for cold-start speed, but must read exactly like
// the Powertools Logger's (the dashboard, the saved queries and anyone's CloudWatch filters read them):
// each line here is held to a real Powertools line written for the same context, field by field.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { writeDecision, DECISION_MESSAGE } from '../../functions/admission/observe/decision-log.js';
import { logger, SERVICE_NAME, StructuredLogger } from '../../functions/admission/observe/logger.js';
import { captureLogLines, type CapturedLogs } from '../helpers/log-lines.js';
import { lambdaContext } from '../helpers/invoke.js';

const context = {
  ...lambdaContext(),
  awsRequestId: 'c0ffee-1',
  functionName: 'portcullis-dev-cel',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:portcullis-dev-cel',
  memoryLimitInMB: '512',
} as Context;
const TRACE = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
const LEVEL_VARIABLES = ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL', '_X_AMZN_TRACE_ID'] as const;
const savedEnv = Object.fromEntries(LEVEL_VARIABLES.map((key) => [key, process.env[key]]));

let logs: CapturedLogs | undefined;
afterEach(() => {
  logs?.restore();
  for (const key of LEVEL_VARIABLES)
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
});

/** Both loggers built under the same environment. */
function bothWith(env: Partial<Record<(typeof LEVEL_VARIABLES)[number], string>>) {
  for (const key of LEVEL_VARIABLES) delete process.env[key];
  Object.assign(process.env, env);
  return { ours: new StructuredLogger(), theirs: new PowertoolsLogger({ serviceName: SERVICE_NAME }) };
}

const withoutTimestamp = ({ timestamp, ...rest }: Record<string, any>) => {
  expect(Date.parse(timestamp)).toBeGreaterThan(Date.now() - 60_000);
  return rest;
};

describe("the stack's log lines, against the Powertools Logger's", () => {
  it('INFO: the same keys in the same order with the same values, empty fields left out, on stdout', () => {
    const { ours, theirs } = bothWith({ POWERTOOLS_LOG_LEVEL: 'INFO', _X_AMZN_TRACE_ID: TRACE });
    logs = captureLogLines();
    const fields = { policy: 'cel', namespace: '', rulesVersion: undefined, dryRun: false, durationMs: 3, details: { rule: 'r' } };
    for (const each of [theirs, ours]) {
      each.addContext(context);
      each.info(DECISION_MESSAGE, fields);
    }
    // cold_start aside: Powertools reads it once per process, and this process has used Powertools before.
    const [{ cold_start: _reference, ...reference }, { cold_start: coldStart, ...line }] = logs.lines().map(withoutTimestamp) as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(Object.keys(line)).toEqual(Object.keys(reference));
    expect(line).toEqual(reference);
    expect(coldStart).toBe(true);
    expect(line).toMatchObject({ xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793', function_memory_size: '512', dryRun: false });
  });

  it('WARN and ERROR: the same lines on stderr, an Error as name, location, message, stack and cause', () => {
    const { ours, theirs } = bothWith({ POWERTOOLS_LOG_LEVEL: 'WARN' });
    const error = Object.assign(new Error('rules fetch failed', { cause: new TypeError('socket hang up') }), { code: 'ECONNRESET' });
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stderr.write;
    try {
      for (const each of [theirs, ours]) {
        each.addContext(context);
        each.warn('caller rejected', { path: '/validate/cel' });
        each.error('unhandled error in the admission stack', { error, bytes: 10n });
        each.info('not at WARN');
      }
    } finally {
      process.stderr.write = write;
    }
    const lines = written
      .join('')
      .trim()
      .split('\n')
      .map((text) => {
        const { cold_start: _, ...line } = withoutTimestamp(JSON.parse(text));
        return line;
      });
    expect(lines).toHaveLength(4);
    expect(lines.slice(2)).toEqual(lines.slice(0, 2));
    expect(lines[3]).toMatchObject({
      level: 'ERROR',
      bytes: '10',
      error: {
        name: 'Error',
        message: 'rules fetch failed',
        code: 'ECONNRESET',
        location: expect.stringMatching(/:\d+$/),
        cause: { name: 'TypeError', message: 'socket hang up' },
      },
    });
  });

  it('cold_start is true for the first invocation of the environment only', () => {
    const { ours } = bothWith({ POWERTOOLS_LOG_LEVEL: 'INFO' });
    logs = captureLogLines();
    for (const requestId of ['first', 'second', 'third']) {
      ours.addContext({ ...context, awsRequestId: requestId });
      ours.info('line');
    }
    expect(logs.lines().map((line) => [line.function_request_id, line.cold_start])).toEqual([
      ['first', true],
      ['second', false],
      ['third', false],
    ]);
  });

  it.each([
    ['POWERTOOLS_LOG_LEVEL=ERROR', { POWERTOOLS_LOG_LEVEL: 'ERROR' }, ['ERROR']],
    ['POWERTOOLS_LOG_LEVEL=SILENT', { POWERTOOLS_LOG_LEVEL: 'SILENT' }, []],
    ['LOG_LEVEL=WARN, when POWERTOOLS_LOG_LEVEL is unset', { LOG_LEVEL: 'WARN' }, ['WARN', 'ERROR']],
    ['a lower-case name is no level: INFO', { POWERTOOLS_LOG_LEVEL: 'error' }, ['INFO', 'WARN', 'ERROR']],
    [
      "Lambda's own level, over a laxer POWERTOOLS_LOG_LEVEL",
      { POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'WARN' },
      ['WARN', 'ERROR'],
    ],
    [
      "Lambda's own level, over a stricter POWERTOOLS_LOG_LEVEL",
      { POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' },
      ['INFO', 'WARN', 'ERROR'],
    ],
    ["Lambda's FATAL is CRITICAL", { AWS_LAMBDA_LOG_LEVEL: 'FATAL' }, []],
    ['nothing set: INFO', {}, ['INFO', 'WARN', 'ERROR']],
  ] as const)('obeys the level as Powertools does: %s', (_name, env, expected) => {
    const { ours, theirs } = bothWith(env);
    logs = captureLogLines();
    for (const each of [theirs, ours]) {
      each.info('i');
      each.warn('w');
      each.error('e');
    }
    expect(logs.lines().map((line) => line.level)).toEqual([...expected, ...expected]);
  });
});

describe('the decision line', () => {
  it('is an INFO line of the stack logger, and is not written above INFO', () => {
    const saved = logger.getLevelName();
    try {
      logger.setLogLevel('INFO');
      logs = captureLogLines();
      writeDecision({ policy: 'cel', outcome: 'denied' });
      logger.setLogLevel('WARN');
      writeDecision({ policy: 'cel', outcome: 'allowed' });
      expect(logs.lines()).toEqual([
        expect.objectContaining({ level: 'INFO', message: DECISION_MESSAGE, service: SERVICE_NAME, policy: 'cel', outcome: 'denied' }),
      ]);
    } finally {
      logger.setLogLevel(saved);
    }
  });
});
