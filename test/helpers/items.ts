// Stored items as the stores write them, built by their entities: fixtures of mocked DynamoDB reads
// parse like the real thing.
import { apiKeyEntity, companyEntity } from '../../functions/store/entities/accounts';
import { apiKeyKey, apiKeysOfCompanyIndex, companyKey } from '../../functions/store/keys';

const createdAt = '2026-01-01T00:00:00.000Z';

/** An API key item of the company (`keyHash`: hashApiKey of the raw key). */
export function storedApiKey(
  keyHash: string,
  key: { companyId: string; userId: string; userEmail: string; keyId: string },
): Record<string, unknown> {
  return apiKeyEntity.item({
    ...apiKeyKey(keyHash),
    ...apiKeysOfCompanyIndex(key.companyId),
    gsi1sk: `${createdAt}#${key.keyId}`,
    type: 'apiKey',
    ...key,
    name: 'test key',
    hint: 'mv_test',
    createdAt,
  });
}

/** A company item with this webhook secret. */
export function storedCompany(companyId: string, webhookSecret: string): Record<string, unknown> {
  return companyEntity.item({
    ...companyKey(companyId),
    type: 'company',
    companyId,
    name: 'Acme',
    seats: 5,
    webhookSecret,
    createdAt,
  });
}
