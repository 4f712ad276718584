// The parsed form of a CEL expression (cel.expr.Expr, the standard AST every CEL engine shares), and its
// direct sub-expressions, for the walks over it: the compile-time reference check and the cost metering.
export type ExprNode = { id?: bigint; exprKind: { case?: string; value?: any } } | undefined;

/** The direct sub-expressions of a call, select, list, map or comprehension, in evaluation order. */
export function subExpressions(node: ExprNode): ExprNode[] {
  const kind = node?.exprKind;
  switch (kind?.case) {
    case 'callExpr':
      return [kind.value.target, ...kind.value.args];
    case 'selectExpr':
      return [kind.value.operand];
    case 'listExpr':
      return kind.value.elements;
    case 'structExpr':
      return kind.value.entries.flatMap((entry: any) => [entry.keyKind?.case === 'mapKey' ? entry.keyKind.value : undefined, entry.value]);
    case 'comprehensionExpr': {
      const { iterRange, accuInit, loopCondition, loopStep, result } = kind.value;
      return [iterRange, accuInit, loopCondition, loopStep, result];
    }
    default:
      return [];
  }
}
