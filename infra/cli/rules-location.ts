// Where commands that work on every policy read the rules documents: a folder as kept in git (--rules DIR,
// default policies/), the live bucket (--bucket, --prefix), or the local stack's bucket (--local).
import type { Command } from 'commander';
import { createS3Client } from '../s3-client.js';
import { localBucketTarget } from '../local-settings.js';
import type { BucketTarget } from '../rules-bucket.js';
import { bucketReader, type DocumentReader, folderReader } from '../rules-documents.js';
import { type FleetLayout, fleetLayoutOfBucket, fleetLayoutOfFolder } from '../fleet-layout.js';
import { UsageError } from './cli-errors.js';

export interface RulesLocationOptions {
  rules?: string;
  bucket?: string;
  prefix?: string;
  local?: boolean;
}

export function rulesLocationOptions(command: Command): Command {
  return command
    .option('--rules <dir>', 'read the documents from this folder (default: policies/)')
    .option('--bucket <bucket>', 'read the live documents from this S3 bucket')
    .option('--prefix <prefix>', 'the key prefix in the bucket (default: policies/)')
    .option('--local', 'read the bucket of the stack `npm start` runs');
}

function checkedLocation(options: RulesLocationOptions): void {
  if ([options.rules !== undefined, options.bucket !== undefined, options.local].filter(Boolean).length > 1)
    throw new UsageError('give one of --rules, --bucket and --local');
  if (options.prefix !== undefined && options.bucket === undefined && !options.local)
    throw new UsageError('--prefix needs --bucket or --local');
}

export function documentReader(options: RulesLocationOptions): DocumentReader {
  checkedLocation(options);
  const bucket = rulesBucket(options);
  return bucket ? bucketReader(bucket) : folderReader(options.rules ?? 'policies');
}

/** The whole fleet where the options say: fleet.yaml, the fleet-wide documents and the clusters' overlays. */
export function fleetLayout(options: RulesLocationOptions): Promise<FleetLayout> {
  checkedLocation(options);
  const bucket = rulesBucket(options);
  return bucket ? fleetLayoutOfBucket(bucket) : fleetLayoutOfFolder(options.rules ?? 'policies');
}

/** The bucket --bucket or --local names (checked by documentReader), or undefined for a folder. */
export function rulesBucket(options: RulesLocationOptions): BucketTarget | undefined {
  if (options.local) return localBucketTarget({ prefix: options.prefix });
  if (!options.bucket) return undefined;
  return {
    client: createS3Client({ endpoint: process.env.RULES_S3_ENDPOINT || undefined }),
    bucket: options.bucket,
    prefix: options.prefix ?? 'policies/',
  };
}
