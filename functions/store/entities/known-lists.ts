// An address on a known list: LIST#<scope>#<email> / <KIND>, gsi1 LIST#<scope>#<KIND> / <email>
// (knownAddressKey and knownAddressIndex in ../keys.ts).
import { string } from 'dynamodb-toolbox';
import { storedEntity } from './declare';

export const knownAddressEntity = storedEntity('knownAddress', {
  gsi1pk: string(),
  gsi1sk: string(),
  email: string(),
  kind: string().enum('dead', 'complainer'),
  scope: string(),
  importedAt: string(),
});
