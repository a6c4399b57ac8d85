// What every declared entity offers its store module: `item` builds the stored item (keys computed
// from the declaration, attributes validated) and `parse` reads one back with its types checked.
// dynamodb-toolbox does the work; entities opt out of its `_et`/`_ct`/`_md` attributes so items stay
// exactly as they were stored before the entities existed.
import {
  DynamoDBToolboxError,
  EntityFormatter,
  EntityParser,
  type Entity,
  type FormattedItem,
  type InputItem,
} from 'dynamodb-toolbox';

export type StoredItem = Record<string, unknown>;

/** A stored item that does not have its entity's shape: a bug or a foreign write, never user input. */
export class MalformedItemError extends Error {
  constructor(entity: string, item: StoredItem, detail: string) {
    super(`Malformed ${entity} item ${String(item.pk)} / ${String(item.sk)}: ${detail}`);
    this.name = 'MalformedItemError';
  }
}

export interface Declared<E extends Entity> {
  readonly name: string;
  readonly entity: E;
  /** The stored item of `input`: its keys (and index keys) computed, every attribute validated. */
  item(input: InputItem<E>): StoredItem;
  /** The attributes of a stored item, validated, or MalformedItemError. */
  parse(stored: StoredItem): FormattedItem<E>;
  /** The attributes a projected read asked for, validated alone (the others are not there to check). */
  parsePart(stored: StoredItem, attributes: readonly string[]): Partial<FormattedItem<E>>;
}

function detailOf(error: unknown): string {
  return error instanceof DynamoDBToolboxError ? error.message : String(error);
}

export function declared<E extends Entity>(entity: E): Declared<E> {
  const parser = entity.build(EntityParser);
  const formatter = entity.build(EntityFormatter);
  return {
    name: entity.entityName,
    entity,
    item(input) {
      let stored: StoredItem;
      try {
        stored = parser.parse(input).item as StoredItem;
      } catch (error) {
        throw new MalformedItemError(entity.entityName, input as StoredItem, detailOf(error));
      }
      // the library drops attributes its schema does not declare: here that is a bug, not a choice
      const undeclared = Object.keys(input as StoredItem).filter(
        (name) => (input as StoredItem)[name] !== undefined && !(name in stored),
      );
      if (undeclared.length > 0)
        throw new MalformedItemError(entity.entityName, stored, `undeclared ${undeclared.join(', ')}`);
      return stored;
    },
    parse(stored) {
      try {
        return formatter.format(stored) as FormattedItem<E>;
      } catch (error) {
        throw new MalformedItemError(entity.entityName, stored, detailOf(error));
      }
    },
    parsePart(stored, attributes) {
      try {
        return formatter.format(stored, { attributes: attributes as never, partial: true }) as Partial<
          FormattedItem<E>
        >;
      } catch (error) {
        throw new MalformedItemError(entity.entityName, stored, detailOf(error));
      }
    },
  };
}
