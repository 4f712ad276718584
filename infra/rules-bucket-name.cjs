// The rules bucket's name for serverless.yml: RULES_BUCKET from the shell when set (the local stack sets
// it to its s3rver bucket); for local runs without it (`sls invoke local`, `sls offline`), none, so rules
// come from policies/; otherwise, in CloudFormation, the bucket the stack made or the rulesBucket param.
module.exports = async ({ resolveVariable }) => {
  if (process.env.RULES_BUCKET !== undefined) return process.env.RULES_BUCKET;
  const argv = process.argv.slice(2);
  const runsLocally = argv.includes('offline') || (argv.includes('invoke') && argv.includes('local'));
  if (runsLocally) return '';
  return { 'Fn::If': ['CreateRulesBucket', { Ref: 'RulesBucket' }, await resolveVariable('param:rulesBucket')] };
};
