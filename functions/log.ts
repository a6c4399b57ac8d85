// Structured JSON logs, one line per event, written by Powertools for AWS Lambda's Logger (level,
// message, timestamp, service, the X-Ray trace id in Lambda, then the context and the event's data),
// with the request id and company id when known. The same lines in Lambda, in the local runtime and in
// the tools. Nothing here ever receives an API key (authentication logs the key's id); an email address
// that reaches a line anyway is masked (log a count, a domain or an id instead).
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { settings } from './settings';

/** The `service` of every log line, and of the traces (clients/tracer.ts). */
export const serviceName = 'mailvet';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface LogContext {
  requestId?: string;
  companyId?: string;
  function?: string;
  [key: string]: unknown;
}

// Text that looks like an email address, wherever it sits in a line (an SMTP reply, an error message).
const emailLike = /[^\s@<>()[\],;:"'`]+@[^\s@<>()[\],;:"'`]+\.[^\s@<>()[\],;:"'`]+/g;

/** Personal data never reaches the logs: every email address in a line is written as `<email>`. */
function maskEmails(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.includes('@') ? value.replace(emailLike, '<email>') : value;
}

// One Powertools logger for the process: the children below only carry their context, so a child per
// request or queue record costs an object, and concurrent invocations of the local runtime never share
// keys. LOG_LEVEL gates here (settings may be read after start-up), so it lets every level through.
const powertools = new PowertoolsLogger({ serviceName, logLevel: 'DEBUG', jsonReplacerFn: maskEmails });

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
    powertools[level](message, { ...this.context, ...data });
  }
}

export const logger = new Logger();
