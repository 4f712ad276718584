// Assembles one policy's Lambda handler. The onion, outermost first:
//   logger.addContext    before: the Lambda request id, function name and cold start on every log line
//                        (never the event: it holds the object, and a Secret's data must not reach the logs)
//   jsonHttpResponse     after: result → 200 JSON; onError: HttpError → its status, anything else → bare 500
//   authenticateCaller   before: with tokens configured, 401 unless the path or a Bearer header carries one;
//                        the token names the calling cluster
//   normaliseEvent       before: API Gateway v1/v2 event → { body, receivedAtMs, apiserverTimeoutMs } (405/413/415/400)
//   parseAdmissionReview before: body → AdmissionReview (400 naming the field)
//   decideAdmission      handler: rules (and, for rules that read the cluster, its snapshot) + policy under the
//                        deadline, failure policy, decision log and metrics
import './shared-chunk.js'; // the bundle's layout: see that file
import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ApiGatewayEvent } from './http/api-gateway-event.js';
import { type Config, configFromEnv, defaultClusterOf } from './config.js';
import { createDecideAdmission } from './decide/decide-admission.js';
import { waitAtMost } from './decide/deadline.js';
import { authenticateCaller } from './http/authenticate-caller.js';
import { logger } from './observe/logger.js';
import { clusterHeartbeats } from './observe/cluster-heartbeat.js';
import { createPolicyMetrics } from './observe/metrics.js';
import { type AdmissionEvent, jsonHttpResponse, normaliseEvent, parseAdmissionReview } from './http/middlewares.js';
import type { SnapshotState } from './cluster/snapshot-loader.js';
import type { Policy } from './policy.js';
import { createClusterRulesLoader } from './fleet/cluster-rules-loader.js';
import {
  fleetSourceFromConfig,
  overlaySourceFromConfig,
  rulesSourceFromConfig,
  snapshotSourceFromConfig,
} from './rules/rules-source-from-config.js';
import type { RulesSource } from './rules/rules-source.js';
import { webhookTokensFrom } from './http/webhook-tokens.js';

export interface HandlerOptions {
  config?: Config;
  /** Where the fleet-wide documents are read; given, the fleet document and overlays are read only from the two below. */
  rulesSource?: RulesSource;
  /** fleet.yaml (default: beside the rules, as the config says). */
  fleetSource?: RulesSource;
  /** The clusters' overlays (default: beside the rules, as the config says). */
  overlaySource?: RulesSource;
  /** Where the cluster snapshot is read (default: beside the rules, as the config says). */
  snapshotSource?: RulesSource;
  /** The clock policies are handed (`portcullis invoke --now` and the tests fix it). */
  clock?: () => Date;
}

export type AdmissionHandler = ((event: ApiGatewayEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  /**
   * The first rules load, started when the handler is created (module load, so Lambda's init phase); the
   * first request joins it if it is still in flight. Settles when it does, or after POLICY_TIMEOUT_MS, and
   * never rejects. It is deliberately not awaited at module level: osls `invoke local` require()s the
   * handler and cannot load a module graph with top-level await (ERR_REQUIRE_ASYNC_MODULE).
   */
  rulesPrefetched: Promise<void>;
};

export function createAdmissionHandler<P>(policy: Policy<P>, options: HandlerOptions = {}): AdmissionHandler {
  const config = options.config ?? configFromEnv();
  const metrics = createPolicyMetrics(policy.name);
  const ownSources = options.rulesSource === undefined;
  const loadRules = createClusterRulesLoader(
    policy,
    {
      rules: options.rulesSource ?? rulesSourceFromConfig(config),
      fleet: options.fleetSource ?? (ownSources ? fleetSourceFromConfig(config) : undefined),
      overlays: options.overlaySource ?? (ownSources ? overlaySourceFromConfig(config) : undefined),
    },
    { maxBytes: config.RULES_MAX_BYTES, patienceMs: config.RULES_FETCH_TIMEOUT_MS, onInvalidVersion: metrics.invalidRulesVersion },
  );
  // Failures are logged by the source and answered per request by the failure policy.
  const rulesPrefetched = waitAtMost(loadRules.prefetch(), config.POLICY_TIMEOUT_MS);
  // The snapshot's reader loads the first time a request's rules read the cluster: most functions never do.
  // Each cluster reads its own snapshot (the calling cluster's, as its token names it).
  let snapshotModule: Promise<typeof import('./cluster/snapshot-loader.js')> | undefined;
  const snapshotSource = options.snapshotSource ?? snapshotSourceFromConfig(config);
  const snapshotLoaders = new Map<string, () => Promise<SnapshotState>>();
  const loadSnapshot = async (cluster: string) => {
    snapshotModule ??= import('./cluster/snapshot-loader.js');
    const { createSnapshotLoader } = await snapshotModule;
    let load = snapshotLoaders.get(cluster);
    if (!load) {
      load = createSnapshotLoader({
        source: snapshotSource,
        cluster,
        maxAgeSeconds: config.CLUSTER_SNAPSHOT_MAX_AGE_SECONDS,
        patienceMs: config.RULES_FETCH_TIMEOUT_MS,
        clock: options.clock,
        onInvalidVersion: metrics.invalidClusterSnapshot,
      });
      snapshotLoaders.set(cluster, load);
    }
    return load();
  };
  // Only the deployed path (rules in S3) has a shared place to say when each cluster last called.
  const heartbeat =
    config.RULES_BUCKET && ownSources
      ? clusterHeartbeats(policy.name, { bucket: config.RULES_BUCKET, prefix: config.STATUS_PREFIX, endpoint: config.RULES_S3_ENDPOINT })
      : undefined;
  const decide = createDecideAdmission(policy, loadRules, config, { clock: options.clock, metrics, loadSnapshot, heartbeat });
  const webhookTokens = webhookTokensFrom(config);
  const handler = middy()
    .use({ before: (request) => logger.addContext(request.context) })
    .use(jsonHttpResponse())
    .use(authenticateCaller(webhookTokens, defaultClusterOf(config)))
    .use(normaliseEvent())
    .use(parseAdmissionReview())
    .handler((event: unknown, context: Context) => decide(event as AdmissionEvent, context));
  return Object.assign(handler as unknown as AdmissionHandler, { rulesPrefetched });
}
