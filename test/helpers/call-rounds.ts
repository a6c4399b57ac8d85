// The DynamoDB calls one function invocation made, as the local runtime's call recorder saw them
// (functions/clients/call-recording.ts): how many of each kind, and how many sequential rounds (calls
// whose time spans overlap ran in parallel and share a round). bench:sync prints them; a test bounds them.
import type { AwsCall } from '../../functions/clients/call-recording';

export interface InvocationCalls {
  invocation: number;
  /** DynamoDB calls by operation (GetItem, UpdateItem, TransactWriteItems, Query...). */
  byOperation: Record<string, number>;
  /** Rounds of DynamoDB calls one after the other: overlapping calls count once. */
  rounds: number;
  /** Calls to the other services (SQS, S3) by operation. */
  other: Record<string, number>;
}

/** Rounds in a set of calls: sort by start, a call that starts after every earlier one ended opens a round. */
export function sequentialRounds(calls: Pick<AwsCall, 'at' | 'ms'>[]): number {
  let rounds = 0;
  let end = -Infinity;
  for (const call of [...calls].sort((a, b) => a.at - b.at)) {
    if (call.at >= end) rounds++;
    end = Math.max(end, call.at + call.ms);
  }
  return rounds;
}

/** The calls of each invocation of `functionName`, in invocation order. */
export function callsPerInvocation(calls: AwsCall[], functionName: string): InvocationCalls[] {
  const groups = new Map<number, AwsCall[]>();
  for (const call of calls) {
    if (call.function !== functionName || call.invocation === undefined) continue;
    const group = groups.get(call.invocation) ?? [];
    group.push(call);
    groups.set(call.invocation, group);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([invocation, group]) => {
      const dynamo = group.filter((call) => call.service === 'dynamodb');
      const count = (list: AwsCall[]) =>
        list.reduce<Record<string, number>>(
          (out, call) => ({ ...out, [call.operation]: (out[call.operation] ?? 0) + 1 }),
          {},
        );
      return {
        invocation,
        byOperation: count(dynamo),
        rounds: sequentialRounds(dynamo),
        other: count(group.filter((call) => call.service !== 'dynamodb')),
      };
    });
}
