// How an item type of the table is declared (storedEntity) and what every declared entity offers its
// store module: `item` builds the stored item (keys computed from the declaration, attributes
// validated) and `parse` reads one back with its types checked. dynamodb-toolbox does the work;
// entities opt out of its `_et`/`_ct`/`_md` attributes so items stay exactly as they were stored
// before the entities existed.
import {
  DynamoDBToolboxError,
  Entity,
  EntityFormatter,
  EntityParser,
  item,
  string,
  type FormattedItem,
  type InputItem,
  type ItemAttributes,
} from 'dynamodb-toolbox';
import { mailvetTable } from './table';

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
  /**
   * The stored item of `input`: its keys (and index keys) computed, every attribute validated. Typed
   * as a read of it: storedEntity declares no renamed or transformed attribute, so the two are one
   * shape (test/integration/entities-compat.test.ts checks it on stored items).
   */
  item(input: InputItem<E>): FormattedItem<E>;
  /** The attributes of a stored item, validated, or MalformedItemError. */
  parse(stored: StoredItem): FormattedItem<E>;
  /**
   * Only the named attributes, each validated as declared (a required one must be there): a projected
   * read, or a hot path that needs a few attributes of a large item.
   */
  pick<K extends keyof FormattedItem<E> & string>(
    stored: StoredItem,
    attributes: readonly K[],
  ): Pick<FormattedItem<E>, K>;
  /** The attributes a projected read asked for, validated alone (the others are not there to check). */
  parsePart(stored: StoredItem, attributes: readonly string[]): Partial<FormattedItem<E>>;
}

/** The item type of a declared entity, as its store reads and writes it. */
export type ItemOf<D extends { parse(stored: StoredItem): unknown }> = ReturnType<D['parse']>;

function detailOf(error: unknown): string {
  return error instanceof DynamoDBToolboxError ? error.message : String(error);
}

function declared<E extends Entity>(entity: E): Declared<E> {
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
      return stored as FormattedItem<E>;
    },
    parse(stored) {
      try {
        return formatter.format(stored) as FormattedItem<E>;
      } catch (error) {
        throw new MalformedItemError(entity.entityName, stored, detailOf(error));
      }
    },
    pick(stored, attributes) {
      try {
        return formatter.format(stored, { attributes: attributes as never }) as FormattedItem<E>;
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

/** The table's key attributes, on every item. */
const tableKeys = { pk: string().key(), sk: string().key() };

/**
 * Declares an item type of the single table: `attributes` besides `pk`/`sk` (index keys and the
 * discriminator, if the item has them, are attributes like any other). No library attributes
 * (`_et`, `_ct`, `_md`), so items stay exactly as stored.
 */
export function storedEntity<NAME extends string, ATTRIBUTES extends ItemAttributes>(
  name: NAME,
  // mapped rather than plain, as the library's item() does, so each attribute keeps its own type
  attributes: { [K in keyof ATTRIBUTES]: ATTRIBUTES[K] },
) {
  const schema = item(tableKeys).and(attributes);
  // For a schema only known as a type parameter, the library cannot see that `pk` and `sk` are plain
  // attributes needing no computed key, so its constructor's argument type is spelled out here.
  const entity = new Entity<NAME, typeof mailvetTable, (typeof schema)['attributes'], false, false>({
    name,
    table: mailvetTable,
    entityAttribute: false,
    timestamps: false,
    schema,
  } as never);
  return declared(entity);
}
