// Structured JSON logs, one line per event, with the request id and company id when known.
// Nothing here ever receives an API key: authentication logs the key's id, not the key.
import { settings } from './settings';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface LogContext {
  requestId?: string;
  companyId?: string;
  function?: string;
  [key: string]: unknown;
}

function levelEnabled(level: Level): boolean {
  let configured: keyof typeof order = 'info';
  try {
    configured = settings().LOG_LEVEL;
  } catch {
    // Settings are not valid yet (start-up failure being logged): log at info.
  }
  return order[level] >= order[configured];
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}

export class Logger {
  constructor(private readonly context: LogContext = {}) {}

  child(extra: LogContext): Logger {
    return new Logger({ ...this.context, ...extra });
  }

  debug(message: string, data: Record<string, unknown> = {}): void {
    this.write('debug', message, data);
  }
  info(message: string, data: Record<string, unknown> = {}): void {
    this.write('info', message, data);
  }
  warn(message: string, data: Record<string, unknown> = {}): void {
    this.write('warn', message, data);
  }
  error(message: string, error?: unknown, data: Record<string, unknown> = {}): void {
    this.write('error', message, error === undefined ? data : { ...data, error: describe(error) });
  }

  private write(level: Level, message: string, data: Record<string, unknown>): void {
    if (!levelEnabled(level)) return;
    const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...this.context, ...data });
    (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
  }
}

export const logger = new Logger();
