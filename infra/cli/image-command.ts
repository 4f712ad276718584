// `portcullis image verify <image> --policy <files...>`: what the cel function's image policies (Kyverno
// verifyImages and ImageValidatingPolicy, Sigstore's ClusterImagePolicy, any rule that judges Pods) say of one
// image, as `cosign verify` answers for one: a Pod running it is judged in-process as a CREATE, its images
// verified against their registries now. Exit 0 when every rule passes it, 1 when one fails it or cannot
// decide, 2 on bad input; a bundle none of whose rules judges the image says so.
import type { Command } from 'commander';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { auditObjects } from '../../functions/audit/audit-objects.js';
import { EXIT, UsageError } from './cli-errors.js';
import { dropStackOutput, print } from './cli-output.js';
import { formatDocument, outputOption } from './output-format.js';
import { readUpload, splitByFunction } from './policy-uploads.js';
import { maxBytes } from './rules-document-file.js';

interface VerifyOptions {
  policy: string[];
  namespace: string;
  output: 'table' | 'json' | 'yaml';
}

/** The cel function's rules in the files: its part of the bundle, checked as an upload is. */
function celDocument(paths: string[]) {
  const read = readUpload(paths, 'cel');
  if (!read.ok) throw new UsageError(`${read.name}: ${read.errors.join('\n')}`);
  const upload = splitByFunction(read.upload).find(({ policy }) => policy.name === 'cel');
  if (!upload) throw new UsageError(`${read.upload.name}: nothing in it is a policy the cel function runs`);
  const parsed = parseRulesDocument(upload.policy, upload.bytes, maxBytes());
  if (!parsed.ok) throw new UsageError(`${upload.name} is not valid:\n${parsed.errors.join('\n')}`);
  return { policy: upload.policy, document: parsed.document };
}

async function verify(image: string, options: VerifyOptions): Promise<number> {
  const { policy, document } = celDocument(options.policy);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'image-verify', namespace: options.namespace },
    spec: { containers: [{ name: 'image', image }] },
  };
  const [audited] = await auditObjects([{ policy, document } as never], [pod], new Date());
  const results = audited!.results.filter(({ result }) => result !== 'skip');
  const failed = results.filter(({ result }) => result === 'fail' || result === 'error');
  if (options.output !== 'table') print(formatDocument({ image, verified: failed.length === 0, results }, options.output));
  else if (results.length === 0) print(`${image}: no rule of these policies judges it\n`);
  else
    print(
      `${results.map(({ policy: name, rule, result, messages }) => `${result.toUpperCase().padEnd(5)} ${name}/${rule}${messages.length > 0 ? `: ${messages.join('; ')}` : ''}`).join('\n')}\n${image}: ${failed.length === 0 ? 'verified' : 'not verified'}\n`,
    );
  return failed.length === 0 ? EXIT.ok : EXIT.found;
}

export function registerImageCommand(program: Command): void {
  const image = program.command('image').description('what the image policies say of one image');
  image
    .command('verify')
    .description("judge one image with the cel function's policies (signatures and attestations verified against its registry now)")
    .argument('<image>', 'the image, by digest or by tag')
    .requiredOption('--policy <files...>', 'the policies: manifests (files or folders) or a rules document, as policy validate reads them')
    .option('--namespace <name>', 'the namespace of the Pod judged', 'default')
    .addOption(outputOption(['table', 'json', 'yaml'], 'table'))
    .addHelpText(
      'after',
      '\nA Pod running the image is judged as a CREATE request by every rule that matches it. Results per rule:\nfail (a violation, whatever the rule does with it), error (it could not decide), pass. Registries are read\nas the functions read them: anonymously, or with the Docker config.json in the SSM parameter\nREGISTRY_CREDENTIALS_PARAMETER names; REGISTRY_CA_PEM adds a certificate authority.',
    )
    .action(async (reference: string, options: VerifyOptions) => {
      dropStackOutput();
      process.exitCode = await verify(reference, options);
    });
}
