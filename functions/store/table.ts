// The single table's shape: read by the CDK stack and by the local runtime when it creates the table.

export const tableKeys = { partition: 'pk', sort: 'sk' } as const;

/** Generic secondary indexes; entities fill gsiNpk/gsiNsk from the builders in keys.ts. */
export const globalIndexes = [
  { name: 'gsi1', partition: 'gsi1pk', sort: 'gsi1sk' },
  { name: 'gsi2', partition: 'gsi2pk', sort: 'gsi2sk' },
] as const;

/** Items with this attribute (epoch seconds) are deleted by DynamoDB's TTL after that time. */
export const ttlAttribute = 'ttl';

export type IndexName = (typeof globalIndexes)[number]['name'];

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
