// A CloudWatch alarm as every alarm of the stack is made: any datapoint at or over the threshold in 5-minute
// periods, missing data not breaching, notifying the same actions of alarm and recovery.
const NAMESPACE = 'Portcullis';
const FIVE_MINUTES = 300;

function alarm({ name, description, namespace = NAMESPACE, metric, dimensions, statistic = 'Sum', threshold = 1, periods = 1, actions }) {
  const byStatistic = /^p\d/.test(statistic) ? { ExtendedStatistic: statistic } : { Statistic: statistic };
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmName: name,
      AlarmDescription: description,
      Namespace: namespace,
      MetricName: metric,
      Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      ...byStatistic,
      Period: FIVE_MINUTES,
      EvaluationPeriods: periods,
      DatapointsToAlarm: periods,
      Threshold: threshold,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: actions,
      OKActions: actions,
    },
  };
}

module.exports = { FIVE_MINUTES, NAMESPACE, alarm };
