// The validation engine of the single-email functions: one per process (Lambda container or local
// runtime), built on first use so its domain cache is shared by every request the process serves.
import { settings } from '../../settings';
import { DynamoProbeVerdictCache } from '../probe/verdict-cache';
import { dynamoKnownLists } from '../../store/known-lists';
import { tableProbeVerdicts } from '../../store/probe-verdicts';
import { CachedKnownLists, ValidationEngine, engineOptionsFromSettings } from '../validation';

/** What the use cases need of the engine (tests hand in an engine pointed at fixture servers). */
export type Validator = Pick<ValidationEngine, 'validate'>;

let engine: Validator | undefined;

export function singleEngine(): Validator {
  const s = settings();
  engine ??= new ValidationEngine(
    engineOptionsFromSettings(s, {
      // the same addresses come back again and again: list answers are reused for KNOWN_LOOKUP_TTL_MS
      knownLists: new CachedKnownLists(dynamoKnownLists()),
      // the verdicts the bulk probe stage found, and the other way round (PROBE_CACHE_DAYS)
      probeCache: new DynamoProbeVerdictCache(tableProbeVerdicts(), s.PROBE_CACHE_DAYS),
    }),
  );
  return engine;
}

/** Replace (tests) or forget (undefined: rebuilt from settings on next use) the process's engine. */
export function setSingleEngine(replacement: Validator | undefined): void {
  engine = replacement;
}
