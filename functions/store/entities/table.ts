// The single table as the entity library sees it. It holds no client: every command an entity builds
// is sent by send() in ../dynamodb.ts, the one path (retries, throttling, metrics).
import { Table } from 'dynamodb-toolbox';
import { tableName } from '../../clients/dynamodb';

export const mailvetTable = new Table({
  name: () => tableName(),
  partitionKey: { name: 'pk', type: 'string' },
  sortKey: { name: 'sk', type: 'string' },
  indexes: {
    gsi1: {
      type: 'global',
      partitionKey: { name: 'gsi1pk', type: 'string' },
      sortKey: { name: 'gsi1sk', type: 'string' },
    },
    gsi2: {
      type: 'global',
      partitionKey: { name: 'gsi2pk', type: 'string' },
      sortKey: { name: 'gsi2sk', type: 'string' },
    },
  },
});
