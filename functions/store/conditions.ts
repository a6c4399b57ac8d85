// Recognising DynamoDB's "a condition did not hold" outcomes by name (instanceof breaks across bundles).

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** A transaction cancelled because one of its conditions failed (reasons list the failing items). */
export function isTransactionConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'ConditionalCheckFailed');
}

/** A transaction cancelled because another transaction held one of its items (no condition failed). */
export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'TransactionConflict') && !isTransactionConditionFailure(error);
}
