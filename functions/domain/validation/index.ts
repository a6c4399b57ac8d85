// The validation engine's public surface: what endpoints, bulk validators and commands import.
export { ValidationEngine, engineOptionsFromSettings } from './engine';
export type { EngineOptions, PreparedBatch, ValidateContext } from './engine';
export { classifyLocal } from './classify';
export { normalizeEmail } from './normalize';
export type { NormalizedEmail } from './normalize';
export { checkSyntax } from './syntax';
export type { SyntaxResult, SyntaxErrorCode } from './syntax';
export { CachedKnownLists, InMemoryKnownLists, KNOWN_LOOKUP_TTL_MS, NO_KNOWN_LISTS } from './known-lists';
export type { KnownAddressLists } from './known-lists';
export { REASONS, STATUSES } from './types';
export type { DomainVerdict, KnownFlags, Reason, Status, ValidationResult, Verdict } from './types';
export type { DnsClient } from './dns-lookup';
