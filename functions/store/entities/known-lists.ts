// An address on a known list: LIST#<scope>#<email> / <KIND>, gsi1 LIST#<scope>#<KIND> / <email>
// (knownAddressKey and knownAddressIndex in ../keys.ts).
import { Entity, item, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const knownAddress = new Entity({
  name: 'knownAddress',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    pk: string().key(),
    sk: string().key(),
    gsi1pk: string(),
    gsi1sk: string(),
    email: string(),
    kind: string().enum('dead', 'complainer'),
    scope: string(),
    importedAt: string(),
  }),
});
export const knownAddressEntity = declared(knownAddress);
