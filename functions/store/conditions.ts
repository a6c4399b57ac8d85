// Recognising DynamoDB's "a condition did not hold" outcomes by name (instanceof breaks across bundles).

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Why one item of a cancelled transaction failed (`Code` is undefined or 'None' for an item that did not). */
export interface CancellationReason {
  Code?: string;
  Message?: string;
}

/** The per-item reasons of a cancelled transaction, in the order of its items; undefined for any other error. */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
}

/** A transaction cancelled because one of its conditions failed (reasons list the failing items). */
export function isTransactionConditionFailure(error: unknown): boolean {
  return (cancellationReasons(error) ?? []).some((r) => r.Code === 'ConditionalCheckFailed');
}

/** A transaction cancelled because another transaction held one of its items (no condition failed). */
export function isTransactionConflict(error: unknown): boolean {
  return (
    (cancellationReasons(error) ?? []).some((r) => r.Code === 'TransactionConflict') &&
    !isTransactionConditionFailure(error)
  );
}
