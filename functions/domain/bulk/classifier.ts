// The validation engine as bulk processing sees it: a classifier prepared once per chunk, so each
// unique domain of the chunk is resolved at most once before its rows are classified.
import type { BulkStatus } from './statuses';

/** Classifies the (already trimmed) email cells of one chunk, in order. */
export type ClassifyChunk = (emails: readonly string[]) => Promise<BulkStatus[]>;

/**
 * The engine's bulk entry point. Until functions/domain/validation exports one, this is a syntax-only
 * stand-in: blank or malformed cells are block_bounce_risk, the rest safe.
 */
export const classifyChunk: ClassifyChunk = async (emails) =>
  emails.map((email) => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? 'safe' : 'block_bounce_risk'));
