// SMTP submission adapter of connected mailboxes (nodemailer): checks a login, and sends placement
// tests as the mailbox. Ports 587 (STARTTLS, required) or 465 (TLS); never port 25. Certificates are
// verified against the host name the user gave; nodemailer's logger is off (AUTH carries the password).
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { errorField, mailServerError, type ServerAddress } from './mail-server-errors';

export interface SmtpLogin extends ServerAddress {
  security: 'tls' | 'starttls';
  username: string;
  password: string;
}

export interface OutgoingMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Without the angle brackets. */
  messageId: string;
  date: Date;
}

function transport(login: SmtpLogin, timeoutMs: number) {
  const options: SMTPTransport.Options = {
    host: login.address,
    port: login.port,
    secure: login.security === 'tls',
    requireTLS: login.security === 'starttls',
    auth: { user: login.username, pass: login.password },
    tls: { ...(isIP(login.host) ? {} : { servername: login.host }), rejectUnauthorized: true },
    name: login.username.includes('@')
      ? login.username.slice(login.username.lastIndexOf('@') + 1)
      : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 4,
    logger: false,
    debug: false,
  };
  return nodemailer.createTransport(options);
}

function failure(login: SmtpLogin, error: unknown) {
  const authFailed = errorField(error, 'code') === 'EAUTH';
  return mailServerError('SMTP', login, error, authFailed, errorField(error, 'response'));
}

/** Connects, logs in and quits: the mailbox's SMTP settings work. */
export async function verifySmtpLogin(login: SmtpLogin, timeoutMs: number): Promise<void> {
  const smtp = transport(login, timeoutMs);
  try {
    await smtp.verify();
  } catch (error) {
    throw failure(login, error);
  } finally {
    smtp.close();
  }
}

/**
 * Sends each message in its own transaction (one recipient each); the first failure stops the rest.
 * Returns how many went out before it, with the failure.
 */
export async function sendMessages(
  login: SmtpLogin,
  messages: OutgoingMessage[],
  timeoutMs: number,
): Promise<{ sent: number; failure?: Error }> {
  const smtp = transport(login, timeoutMs);
  let sent = 0;
  try {
    for (const message of messages) {
      await smtp.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId: `<${message.messageId}>`,
        date: message.date,
      });
      sent++;
    }
    return { sent };
  } catch (error) {
    return { sent, failure: failure(login, error) };
  } finally {
    smtp.close();
  }
}
