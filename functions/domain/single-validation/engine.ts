// The validation engine of the single-email functions: one per process (Lambda container or local
// runtime), built on first use so its domain cache is shared by every request the process serves.
import { dynamoDb, tableName } from '../../clients/dynamodb';
import { settings } from '../../settings';
import { DynamoKnownLists, ValidationEngine, engineOptionsFromSettings } from '../validation';

/** What the use cases need of the engine (tests hand in an engine pointed at fixture servers). */
export type Validator = Pick<ValidationEngine, 'validate'>;

let engine: Validator | undefined;

export function singleEngine(): Validator {
  engine ??= new ValidationEngine(
    engineOptionsFromSettings(settings(), { knownLists: new DynamoKnownLists(dynamoDb(), tableName()) }),
  );
  return engine;
}

/** Replace (tests) or forget (undefined: rebuilt from settings on next use) the process's engine. */
export function setSingleEngine(replacement: Validator | undefined): void {
  engine = replacement;
}
