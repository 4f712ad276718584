// The decision line is written without the Powertools Logger, for speed, but must read like the logger's
// own lines: the same keys with the same values, its level obeyed, empty fields left out.
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { createDecisionLog, DECISION_MESSAGE } from '../../functions/admission/observe/decision-log.js';
import { logger } from '../../functions/admission/observe/logger.js';
import { captureLogLines, type CapturedLogs } from '../helpers/log-lines.js';
import { lambdaContext } from '../helpers/invoke.js';

const context = { ...lambdaContext(), awsRequestId: 'c0ffee-1', functionName: 'portcullis-dev-cel', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:portcullis-dev-cel', memoryLimitInMB: '512' } as Context;
const TRACE = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

let logs: CapturedLogs | undefined;
const savedLevel = logger.getLevelName();
afterEach(() => {
  logs?.restore();
  logger.setLogLevel(savedLevel);
  delete process.env._X_AMZN_TRACE_ID;
});

describe('the decision line', () => {
  it("has the logger's keys and values, in its order, then the decision's", () => {
    process.env._X_AMZN_TRACE_ID = TRACE;
    logger.setLogLevel('INFO');
    logs = captureLogLines();
    logger.addContext(context);
    logger.info('reference line');
    createDecisionLog()({ policy: 'cel', outcome: 'denied', durationMs: 3 }, context);
    const [reference, decision] = logs.lines();
    const { message: _reference, timestamp: _at, cold_start: _cold, ...referenceValues } = reference!;
    expect(Object.keys(decision!)).toEqual([...Object.keys(reference!), 'policy', 'outcome', 'durationMs']);
    expect(decision).toMatchObject({ ...referenceValues, message: DECISION_MESSAGE, cold_start: true, xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793', policy: 'cel', outcome: 'denied', durationMs: 3 });
    expect(Date.parse(decision!.timestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('says cold_start only on the first decision of the environment, and leaves out empty fields', () => {
    logger.setLogLevel('INFO');
    logs = captureLogLines();
    const write = createDecisionLog();
    write({ namespace: '', rulesVersion: undefined, dryRun: false }, context);
    write({ details: { rule: 'r' } }, context);
    const [first, second] = logs.lines();
    expect(first).toMatchObject({ cold_start: true, dryRun: false });
    expect(first).not.toHaveProperty('namespace');
    expect(first).not.toHaveProperty('rulesVersion');
    expect(second).toMatchObject({ cold_start: false, details: { rule: 'r' } });
  });

  it.each(['WARN', 'ERROR', 'SILENT'] as const)('is not written at log level %s', (level) => {
    logger.setLogLevel(level);
    logs = captureLogLines();
    createDecisionLog()({ policy: 'cel' }, context);
    expect(logs.lines()).toEqual([]);
  });
});
