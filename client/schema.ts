// Generated from docs/openapi.json by `npm run client:types` (openapi-typescript); do not edit.

export interface paths {
  '/v1/email/validate-file': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The company's bulk jobs, newest first */
    get: operations['listJobs'];
    put?: never;
    /** Create a bulk validation job and its presigned upload URL (PUT with Content-Type: text/csv) */
    post: operations['createJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate-file/{jobId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Job status and progress */
    get: operations['getJob'];
    put?: never;
    post?: never;
    /** Delete a job, its upload and its results (an active job is cancelled first; usage already counted stays) */
    delete: operations['deleteJob'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate-file/{jobId}/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Presigned GET of the results file, or of a copy with only some statuses and/or the reason column */
    get: operations['downloadJob'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate-file/{jobId}/run': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run a completed estimate in full: a new job over the same upload, with the same options (nothing to upload) */
    post: operations['runEstimate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate-file/{jobId}/webhook-deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Each attempt of the job's completion webhook, oldest first */
    get: operations['listWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Validate one address within the sync budget (SYNC_BUDGET_MS) */
    post: operations['validateEmail'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate-batch': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Validate up to 100 addresses within the sync budget; results in input order */
    post: operations['validateEmailBatch'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate-async': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Accept one address and validate it in the background */
    post: operations['validateEmailAsync'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/email/validate/{requestId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Poll a validation request; clients branch on the status code */
    get: operations['getValidation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Validations used in a calendar month (UTC), split by source, with the quota, credits and what remains */
    get: operations['getUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connected-mailboxes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Connected mailboxes with their reputation over a named window */
    get: operations['listConnectedMailboxes'];
    put?: never;
    /** Connect a mailbox by its IMAP and SMTP submission settings (admin). Both logins are checked at once; the passwords are encrypted and never returned */
    post: operations['connectMailbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connected-mailboxes/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One connected mailbox with its daily reputation history */
    get: operations['getConnectedMailbox'];
    put?: never;
    post?: never;
    /** Disconnect a mailbox (admin): its credentials and reputation series are deleted */
    delete: operations['disconnectMailbox'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connected-domains': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Sending domains with current reputation and mailbox count */
    get: operations['listConnectedDomains'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connected-domains/{domainName}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One domain’s daily reputation history */
    get: operations['getConnectedDomain'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/users': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Users, pending invites included */
    get: operations['listUsers'];
    put?: never;
    /** Invite a user (needs the inviteUsers permission) */
    post: operations['inviteUser'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/users/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One active user */
    get: operations['getUser'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/safety-net-mailboxes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Safety Net mailboxes */
    get: operations['listSafetyNetMailboxes'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/safety-net-mailboxes/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One Safety Net mailbox */
    get: operations['getSafetyNetMailbox'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Switch the Safety Net on or off for a mailbox (idempotent) */
    patch: operations['patchSafetyNetMailbox'];
    trace?: never;
  };
  '/v1/safety-net-sequences': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Sequences, one row per owner */
    get: operations['listSafetyNetSequences'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/safety-net-sequences/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One sequence row */
    get: operations['getSafetyNetSequence'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Switch the Safety Net for a sequence, under every owner (needs the toggleSequences permission) */
    patch: operations['patchSafetyNetSequence'];
    trace?: never;
  };
  '/v1/invites/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Accept an invite with its link's one-time token: the invitee's password makes them an active user */
    post: operations['acceptInvite'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The calling admin's own API keys (hints only, never the keys) */
    get: operations['listApiKeys'];
    put?: never;
    /** Create an API key for the calling admin; the key is in this answer only */
    post: operations['createApiKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke one of the calling admin's own API keys (requests with it get 403 from then on) */
    delete: operations['revokeApiKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/password-resets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Email a one-time link to choose a new password: the same answer for any address */
    post: operations['requestPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/password-resets/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Set a new password with the reset link's one-time token */
    post: operations['confirmPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/integrations/{platform}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start connecting a platform (admin): the URL to send the browser to */
    post: operations['startIntegration'];
    /** Disconnect (admin): the grant is forgotten and the platform’s items leave the lists */
    delete: operations['deleteIntegration'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/integrations/{platform}/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Where the platform sends the browser back (no key): stores the grant, starts a sync */
    get: operations['integrationCallback'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/integrations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The company’s Safety Net connections, their state and last sync */
    get: operations['listIntegrations'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/integrations/{platform}/sync': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sync the connection now */
    post: operations['syncIntegration'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/integrations/{platform}/webhooks/{companyId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A platform’s webhook (no key; signed: Outreach-Webhook-Signature or x-salesloft-signature) */
    post: operations['integrationWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/safety-net/preventions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The emails the Safety Net stopped, newest first */
    get: operations['listSafetyNetPreventions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/safety-net/allowlist': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The addresses the Safety Net never stops (admin) */
    get: operations['getSafetyNetAllowlist'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/safety-net/allowlist/{email}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Allowlist an address (admin; any case) */
    put: operations['putSafetyNetAllowlist'];
    post?: never;
    /** Remove an address from the allowlist (admin) */
    delete: operations['deleteSafetyNetAllowlist'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Error: {
      error: string;
    };
    CreatedJob: {
      jobId: string;
      /** @constant */
      status: 'awaiting_upload';
      /** @description Seconds the upload URL stays valid */
      uploadExpiresIn: number;
      /** @description Presigned PUT; send the CSV with Content-Type: text/csv */
      uploadUrl: string;
    };
    Job: {
      /** @description ISO 8601; null until completed */
      completedAt: string | null;
      /** @description ISO 8601 */
      createdAt: string;
      /** @description Rows whose address (extracted, normalised, compared without regard to case) appeared earlier in the file: each has its first occurrence's status, counts in totalEmails and statistics, and is not counted in usage. Known once the upload is scanned; 0 when none */
      duplicateEmails: number;
      /** @description The upload's detected text encoding (utf-8, utf-16le, utf-16be, windows-1252, ...), once scanned */
      encoding?: string;
      /** @description Failed jobs, and completed jobs whose results expired: what happened and what to do */
      error?: string;
      /** @description Processing jobs whose mailbox probes wait on the politeness limits of a busy mail server: when probing is expected to be done (ISO 8601) */
      expectedFinishAt?: string;
      /** @description Jobs created with "estimate": true only: null until the estimate completes, then what a full run of the file is expected to give */
      estimate?: {
        /** @description Data rows of the file: the rows a full run gives a status (and counts in usage) */
        rows: number;
        /** @description Rows validated: a uniform random sample of 1,000, or every row of a smaller file. They are the estimate job's totalEmails, statistics and usage */
        sampled: number;
        /** @description The sample's statistics projected to the whole file: whole numbers summing to rows */
        statistics: {
          safe: number;
          block_bounce_risk: number;
          some_risk: number;
          dead_email: number;
          do_not_mail_abuse: number;
        };
      } | null;
      jobId: string;
      percentComplete: number;
      processedEmails: number;
      /** @description An estimate that was run in full (POST .../{jobId}/run): the job running it */
      runJobId?: string;
      /** @description Completed jobs only: the count of each status; they sum to totalEmails */
      statistics: {
        safe: number;
        block_bounce_risk: number;
        some_risk: number;
        dead_email: number;
        do_not_mail_abuse: number;
      } | null;
      /** @enum {string} */
      status: 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'expired';
      totalEmails: number;
      /** @description Addresses the mailbox probe could not reach before the processing deadline: they keep the verdict their domain gives (smtpProbe not_attempted). 0 when every address was probed or probing is off */
      unprobedEmails: number;
    };
    Download: {
      /** @description Presigned GET of the results CSV */
      downloadUrl: string;
      /** @description Seconds the download URL stays valid */
      expiresIn: number;
      /** @description The results file name the download suggests */
      fileName: string;
      /** @constant */
      format: 'csv';
      jobId: string;
    };
    JobPage: {
      jobs: {
        /** @description ISO 8601; null until completed */
        completedAt: string | null;
        /** @description ISO 8601 */
        createdAt: string;
        /** @description Rows whose address (extracted, normalised, compared without regard to case) appeared earlier in the file: each has its first occurrence's status, counts in totalEmails and statistics, and is not counted in usage. Known once the upload is scanned; 0 when none */
        duplicateEmails: number;
        /** @description The upload's detected text encoding (utf-8, utf-16le, utf-16be, windows-1252, ...), once scanned */
        encoding?: string;
        /** @description Failed jobs, and completed jobs whose results expired: what happened and what to do */
        error?: string;
        /** @description Processing jobs whose mailbox probes wait on the politeness limits of a busy mail server: when probing is expected to be done (ISO 8601) */
        expectedFinishAt?: string;
        /** @description Jobs created with "estimate": true only: null until the estimate completes, then what a full run of the file is expected to give */
        estimate?: {
          /** @description Data rows of the file: the rows a full run gives a status (and counts in usage) */
          rows: number;
          /** @description Rows validated: a uniform random sample of 1,000, or every row of a smaller file. They are the estimate job's totalEmails, statistics and usage */
          sampled: number;
          /** @description The sample's statistics projected to the whole file: whole numbers summing to rows */
          statistics: {
            safe: number;
            block_bounce_risk: number;
            some_risk: number;
            dead_email: number;
            do_not_mail_abuse: number;
          };
        } | null;
        jobId: string;
        percentComplete: number;
        processedEmails: number;
        /** @description An estimate that was run in full (POST .../{jobId}/run): the job running it */
        runJobId?: string;
        /** @description Completed jobs only: the count of each status; they sum to totalEmails */
        statistics: {
          safe: number;
          block_bounce_risk: number;
          some_risk: number;
          dead_email: number;
          do_not_mail_abuse: number;
        } | null;
        /** @enum {string} */
        status: 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'expired';
        totalEmails: number;
        /** @description Addresses the mailbox probe could not reach before the processing deadline: they keep the verdict their domain gives (smtpProbe not_attempted). 0 when every address was probed or probing is off */
        unprobedEmails: number;
        /** @description The fileName given at creation; null when none was */
        fileName: string | null;
      }[];
      limit: number;
      offset: number;
      /** @description Every job of the company that matches the filter */
      total: number;
    };
    WebhookDeliveries: {
      deliveries: {
        /** @description 1 for the first delivery, then each retry */
        attempt: number;
        /** @description ISO 8601 time the attempt started */
        at: string;
        /** @description How long the attempt took */
        durationMs: number | null;
        /** @description Why it did not count as delivered (null when it did) */
        error: string | null;
        /** @description ISO 8601 time of the next attempt; null when none follows */
        nextRetryAt: string | null;
        /** @enum {string} */
        outcome: 'delivered' | 'retry' | 'failed' | 'refused';
        /** @description The receiver's HTTP status; null when none came back */
        statusCode: number | null;
      }[];
      jobId: string;
      /** @description null until the first attempt (or for a job without callbackUrl) */
      webhookStatus: ('delivered' | 'retrying' | 'failed') | null;
    };
    ValidationResult: {
      /** @description A likely intended address, when the domain looks mistyped */
      didYouMean?: string;
      domain: {
        hasMailServer: boolean | null;
        isCatchAll: boolean | null;
        isDisposable: boolean;
        isFreeProvider: boolean;
        mxProvider: string | null;
        mxRecords: {
          exchange: string;
          priority: number;
        }[];
        name: string;
        registrableDomain: string | null;
        unicodeName: string;
      };
      email: string;
      mailbox: {
        isAbuseRole: boolean;
        isKnownComplainer: boolean;
        isKnownDead: boolean;
        isRoleAccount: boolean;
        localPart: string;
        /**
         * @description off, skipped, or the SMTP probe’s outcome
         * @enum {string}
         */
        smtpProbe:
          | 'accepted'
          | 'not_found'
          | 'disabled'
          | 'full'
          | 'greylisted'
          | 'timeout'
          | 'unreachable'
          | 'blocked'
          | 'error'
          | 'proxy_failed'
          | 'unverifiable'
          | 'not_attempted'
          | 'off'
          | 'skipped';
        /** @description The mail server’s reply that decided smtpProbe; null when no reply decided */
        smtpReply: {
          /** @description Basic reply code (550) */
          code: number;
          /** @description RFC 3463 enhanced status code (5.1.1), null when not sent */
          enhanced: string | null;
          /** @description The reply text on one line, at most 200 characters */
          text: string;
        } | null;
      };
      /** @description The request’s metadata, echoed */
      metadata?: {
        [key: string]: unknown;
      };
      requestId: string;
      result: {
        /**
         * @description Machine-readable why of the verdict (docs/validation.md)
         * @enum {string}
         */
        reason:
          | 'blank'
          | 'invalid_syntax'
          | 'no_such_domain'
          | 'null_mx'
          | 'no_mail_server'
          | 'disposable'
          | 'known_dead_non_catch_all'
          | 'mailbox_not_found'
          | 'mailbox_disabled'
          | 'role_abuse'
          | 'known_complainer'
          | 'known_dead'
          | 'mailbox_not_found_catch_all'
          | 'dns_error'
          | 'dns_timeout'
          | 'dns_unavailable'
          | 'ip_literal'
          | 'quoted_local_part'
          | 'smtputf8_local_part'
          | 'mailbox_full'
          | 'greylisted'
          | 'smtp_timeout'
          | 'role_account'
          | 'domain_not_resolved'
          | 'validation_error'
          | 'catch_all'
          | 'accepted'
          | 'domain_ok';
        /** @enum {string} */
        status: 'safe' | 'block_bounce_risk' | 'some_risk' | 'dead_email' | 'do_not_mail_abuse';
        /** @description Detail of the reason; for a probe verdict the server’s enhanced code (5.1.1), else its basic code */
        subStatus: string | null;
      };
      /** @description ISO 8601 */
      validatedAt: string;
    };
    InProgress: {
      /** @description Relative to the API origin: GET it for the result */
      pollUrl: string;
      requestId: string;
      /** @description Seconds until a poll is worth it (also Retry-After) */
      retryAfter: number;
    };
    BatchResults: {
      /** @description One per address, in input order: its result, or where to poll for it */
      results: (
        | {
            /** @description A likely intended address, when the domain looks mistyped */
            didYouMean?: string;
            domain: {
              hasMailServer: boolean | null;
              isCatchAll: boolean | null;
              isDisposable: boolean;
              isFreeProvider: boolean;
              mxProvider: string | null;
              mxRecords: {
                exchange: string;
                priority: number;
              }[];
              name: string;
              registrableDomain: string | null;
              unicodeName: string;
            };
            email: string;
            mailbox: {
              isAbuseRole: boolean;
              isKnownComplainer: boolean;
              isKnownDead: boolean;
              isRoleAccount: boolean;
              localPart: string;
              /**
               * @description off, skipped, or the SMTP probe’s outcome
               * @enum {string}
               */
              smtpProbe:
                | 'accepted'
                | 'not_found'
                | 'disabled'
                | 'full'
                | 'greylisted'
                | 'timeout'
                | 'unreachable'
                | 'blocked'
                | 'error'
                | 'proxy_failed'
                | 'unverifiable'
                | 'not_attempted'
                | 'off'
                | 'skipped';
              /** @description The mail server’s reply that decided smtpProbe; null when no reply decided */
              smtpReply: {
                /** @description Basic reply code (550) */
                code: number;
                /** @description RFC 3463 enhanced status code (5.1.1), null when not sent */
                enhanced: string | null;
                /** @description The reply text on one line, at most 200 characters */
                text: string;
              } | null;
            };
            /** @description The request’s metadata, echoed */
            metadata?: {
              [key: string]: unknown;
            };
            requestId: string;
            result: {
              /**
               * @description Machine-readable why of the verdict (docs/validation.md)
               * @enum {string}
               */
              reason:
                | 'blank'
                | 'invalid_syntax'
                | 'no_such_domain'
                | 'null_mx'
                | 'no_mail_server'
                | 'disposable'
                | 'known_dead_non_catch_all'
                | 'mailbox_not_found'
                | 'mailbox_disabled'
                | 'role_abuse'
                | 'known_complainer'
                | 'known_dead'
                | 'mailbox_not_found_catch_all'
                | 'dns_error'
                | 'dns_timeout'
                | 'dns_unavailable'
                | 'ip_literal'
                | 'quoted_local_part'
                | 'smtputf8_local_part'
                | 'mailbox_full'
                | 'greylisted'
                | 'smtp_timeout'
                | 'role_account'
                | 'domain_not_resolved'
                | 'validation_error'
                | 'catch_all'
                | 'accepted'
                | 'domain_ok';
              /** @enum {string} */
              status: 'safe' | 'block_bounce_risk' | 'some_risk' | 'dead_email' | 'do_not_mail_abuse';
              /** @description Detail of the reason; for a probe verdict the server’s enhanced code (5.1.1), else its basic code */
              subStatus: string | null;
            };
            /** @description ISO 8601 */
            validatedAt: string;
          }
        | {
            /** @description The address as submitted */
            email: string;
            /** @description Relative to the API origin: GET it for the result */
            pollUrl: string;
            requestId: string;
          }
      )[];
    };
    Usage: {
      /** @description YYYY-MM */
      month: string;
      /** @description First instant of the month (UTC), inclusive */
      periodStart: string;
      /** @description First instant of the next month (UTC), exclusive */
      periodEnd: string;
      /** @description Validations included in the month */
      quota: number;
      /** @description Prepaid credits left now */
      creditsRemaining: number;
      /** @description Validations still possible in the month: quota left plus credits (running bulk jobs hold theirs) */
      remaining: number;
      used: {
        bulk: number;
        single: number;
        total: number;
      };
    };
    ConnectedMailboxPage: {
      limit: number;
      offset: number;
      total: number;
      mailboxes: {
        /** @description ISO 8601 timestamp (UTC) */
        connectedAt: string;
        /** @enum {string} */
        connectionStatus: 'connected' | 'credentials_error';
        domain: string;
        email: string;
        id: string;
        owner: {
          email: string;
          firstName: string;
          lastName: string;
        };
        provider: string;
        /** @description ISO 8601 timestamp (UTC) */
        statusUpdatedAt: string;
        /** @description Mean over the window; null without data */
        reputation: number | null;
      }[];
      reputationRange: {
        /** @enum {string} */
        name:
          | 'today'
          | 'yesterday'
          | 'last7Days'
          | 'thisWeek'
          | 'last30Days'
          | 'lastWeek'
          | 'lastMonth'
          | 'thisMonth';
        /** @description YYYY-MM-DD (UTC) */
        startDate: string;
        /** @description YYYY-MM-DD (UTC) */
        endDate: string;
      };
    };
    ConnectedMailbox: {
      /** @description ISO 8601 timestamp (UTC) */
      connectedAt: string;
      /** @enum {string} */
      connectionStatus: 'connected' | 'credentials_error';
      domain: string;
      email: string;
      id: string;
      owner: {
        email: string;
        firstName: string;
        lastName: string;
      };
      provider: string;
      /** @description ISO 8601 timestamp (UTC) */
      statusUpdatedAt: string;
      /** @description The latest known day */
      currentReputation: number | null;
      /** @description YYYY-MM-DD (UTC) */
      startDate: string;
      /** @description YYYY-MM-DD (UTC) */
      endDate: string;
      /** @description Mean over the window; null without data */
      reputation: number | null;
      history: {
        /** @description YYYY-MM-DD (UTC) */
        date: string;
        reputation: number | null;
      }[];
    };
    ConnectedMailboxItem: {
      /** @description ISO 8601 timestamp (UTC) */
      connectedAt: string;
      /** @enum {string} */
      connectionStatus: 'connected' | 'credentials_error';
      domain: string;
      email: string;
      id: string;
      owner: {
        email: string;
        firstName: string;
        lastName: string;
      };
      provider: string;
      /** @description ISO 8601 timestamp (UTC) */
      statusUpdatedAt: string;
      /** @description Mean over the window; null without data */
      reputation: number | null;
    };
    ConnectedDomainPage: {
      limit: number;
      offset: number;
      total: number;
      domains: {
        currentReputation: number | null;
        domain: string;
        mailboxCount: number;
      }[];
    };
    ConnectedDomain: {
      currentReputation: number | null;
      domain: string;
      mailboxCount: number;
      /** @description YYYY-MM-DD (UTC) */
      startDate: string;
      /** @description YYYY-MM-DD (UTC) */
      endDate: string;
      /** @description Mean over the window; null without data */
      reputation: number | null;
      history: {
        /** @description YYYY-MM-DD (UTC) */
        date: string;
        reputation: number | null;
      }[];
    };
    UserPage: {
      limit: number;
      offset: number;
      total: number;
      users: {
        /** @description Active users only */
        createdAt?: string | null;
        email: string;
        /** @description null for an invited user */
        id: string | null;
        /** @description Invited users only */
        inviteExpiresAt?: string | null;
        mailboxes: {
          email: string;
          id: string;
        }[];
        name: string;
        /** @enum {string} */
        role: 'member' | 'admin';
        /** @enum {string} */
        status: 'active' | 'invited';
      }[];
    };
    User: {
      /** @description Active users only */
      createdAt?: string | null;
      email: string;
      /** @description null for an invited user */
      id: string | null;
      /** @description Invited users only */
      inviteExpiresAt?: string | null;
      mailboxes: {
        email: string;
        id: string;
      }[];
      name: string;
      /** @enum {string} */
      role: 'member' | 'admin';
      /** @enum {string} */
      status: 'active' | 'invited';
    };
    SafetyNetMailboxPage: {
      limit: number;
      offset: number;
      total: number;
      mailboxes: {
        activated: boolean;
        email: string;
        id: string;
        integrations: {
          externalId: string | null;
          /** @enum {string} */
          service: 'outreach' | 'salesloft';
        }[];
      }[];
    };
    SafetyNetMailbox: {
      activated: boolean;
      email: string;
      id: string;
      integrations: {
        externalId: string | null;
        /** @enum {string} */
        service: 'outreach' | 'salesloft';
      }[];
    };
    SafetyNetSequencePage: {
      limit: number;
      offset: number;
      total: number;
      sequences: {
        activated: boolean;
        crmSequenceId: string;
        id: string;
        name: string;
        owner: {
          email: string;
          firstName: string;
          lastName: string;
        };
        /** @enum {string} */
        service: 'outreach' | 'salesloft';
      }[];
    };
    SafetyNetSequence: {
      activated: boolean;
      crmSequenceId: string;
      id: string;
      name: string;
      owner: {
        email: string;
        firstName: string;
        lastName: string;
      };
      /** @enum {string} */
      service: 'outreach' | 'salesloft';
    };
    AcceptedUser: {
      /** @description Active users only */
      createdAt?: string | null;
      email: string;
      /** @description null for an invited user */
      id: string | null;
      /** @description Invited users only */
      inviteExpiresAt?: string | null;
      mailboxes: {
        email: string;
        id: string;
      }[];
      name: string;
      /** @enum {string} */
      role: 'member' | 'admin';
      /** @enum {string} */
      status: 'active' | 'invited';
    };
    ApiKey: {
      /** @description ISO 8601 timestamp (UTC) */
      createdAt: string;
      /** @description The first characters of the key */
      hint: string;
      id: string;
      name: string;
      /** @description Set once the key is revoked */
      revokedAt?: string;
    };
    ApiKeyList: {
      apiKeys: {
        /** @description ISO 8601 timestamp (UTC) */
        createdAt: string;
        /** @description The first characters of the key */
        hint: string;
        id: string;
        name: string;
        /** @description Set once the key is revoked */
        revokedAt?: string;
      }[];
    };
    CreatedApiKey: {
      /** @description ISO 8601 timestamp (UTC) */
      createdAt: string;
      /** @description The first characters of the key */
      hint: string;
      id: string;
      name: string;
      /** @description Set once the key is revoked */
      revokedAt?: string;
      /** @description The key itself: shown this once, never stored */
      key: string;
    };
    PasswordResetAnswer: {
      message: string;
    };
    AuthorizeUrl: {
      authorizeUrl: string;
    };
    Integrations: {
      integrations: {
        /** @description ISO 8601 timestamp (UTC) */
        connectedAt: string;
        /** @description The last sync that completed; null before the first */
        lastSyncAt: string | null;
        /** @description Why the last sync failed; null when it didn't */
        lastSyncError: string | null;
        /** @enum {string} */
        platform: 'outreach' | 'salesloft';
        /**
         * @description grant_error: the grant was revoked or expired: connect again
         * @enum {string}
         */
        status: 'connected' | 'syncing' | 'grant_error';
      }[];
    };
    PreventionPage: {
      limit: number;
      offset: number;
      preventions: {
        /** @description When the email was stopped (ISO 8601, UTC) */
        createdAt: string;
        explanation: string;
        id: string;
        /** @description The sending mailbox */
        mailbox: string;
        /** @enum {string} */
        platform: 'outreach' | 'salesloft';
        prospectEmail: string;
        /** @description The verdict's reason */
        reason: string;
        sequence: {
          crmSequenceId: string;
          name: string;
        } | null;
        /** @description The verdict's status */
        status: string;
      }[];
      total: number;
    };
    Allowlist: {
      emails: string[];
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  listJobs: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
        status?: 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'expired';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of jobs, sorted; total counts every match */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JobPage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "status must be one of awaiting_upload, processing, completed, failed, expired"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createJob: {
    parameters: {
      query?: never;
      header?: {
        /** @description Same key and same body within 24 hours: the first response again, and no new work. Same key, other body: 422. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          emailColumn: number;
          fileName?: string;
          callbackUrl?: string;
          /** @description true: validate a random sample of the file (1,000 rows, or every row of a smaller file) and project its statistics to the whole file; no results file. Run it in full with POST .../{jobId}/run */
          estimate?: boolean;
        };
      };
    };
    responses: {
      /** @description The job, awaiting its upload */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedJob'];
        };
      };
      /** @description "emailColumn is required"; "emailColumn must be a non-negative integer"; "emailColumn must be 1000 or less"; "fileName must be a non-empty string"; "fileName must be 255 characters or less"; "fileName must end in .csv"; "Invalid callbackUrl"; "estimate must be true or false"; "Idempotency-Key must be 1 to 255 visible ASCII characters"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "A request with this Idempotency-Key is still in progress; retry in a few seconds" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Idempotency-Key reused with a different body" */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Concurrent job limit reached. Complete or wait for existing jobs before creating new ones."; "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The job; statistics once completed, error once failed */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Job'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Job not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted; the job answers 404 from now on */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Job not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  downloadJob: {
    parameters: {
      query?: {
        status?: string;
        columns?: string;
        unique?: 'true' | 'false';
      };
      header?: never;
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Where to download the results CSV */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Download'];
        };
      };
      /** @description "status must be a comma-separated list of safe, block_bounce_risk, some_risk, dead_email, do_not_mail_abuse"; "columns must be a comma-separated list of status, reason"; "unique must be true or false"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Job not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Job is not completed"; "This job is an estimate and has no results file. Run it in full with POST /v1/email/validate-file/{jobId}/run, then download that job."; "This job was completed before filtered downloads existed; download the full results without status or columns" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "The results were deleted 30 days after the job completed. Create a new job to validate the file again." */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  runEstimate: {
    parameters: {
      query?: never;
      header?: {
        /** @description Same key and same body within 24 hours: the first response again, and no new work. Same key, other body: 422. */
        'Idempotency-Key'?: string;
      };
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The run job, as a created job is; its file is already in place (uploadUrl is not needed) and it starts processing at once */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedJob'];
        };
      };
      /** @description "Idempotency-Key must be 1 to 255 visible ASCII characters"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Job not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an estimate can be run: this job was not created with "estimate": true"; "Job is not completed"; "This estimate was already run in full; its runJobId is the job running it"; "A request with this Idempotency-Key is still in progress; retry in a few seconds" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "An estimate can be run for 24 hours after it completes; its file is gone. Create a new job and upload the file again." */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Idempotency-Key reused with a different body" */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Concurrent job limit reached. Complete or wait for existing jobs before creating new ones."; "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listWebhookDeliveries: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The attempts and the webhook status */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDeliveries'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Job not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  validateEmail: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The address to validate */
          email: string;
          /** @description Echoed in the result; at most 16384 bytes as JSON */
          metadata?: {
            [key: string]: unknown;
          };
          /** @description Milliseconds the call waits for the verdict at most, within the sync budget (30 s by default): when they have passed, the answer is 202 with a poll URL, as when the budget runs out */
          timeoutMs?: number;
        };
      };
    };
    responses: {
      /** @description The verdict. A publishable key (mv_pub_, the signup-form widget) gets only email, result and didYouMean */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationResult'];
        };
      };
      /** @description Over the budget: poll pollUrl after Retry-After seconds */
      202: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InProgress'];
        };
      };
      /** @description "email is required"; "email must be 10000 characters or less"; "metadata must be a JSON object"; "metadata must be 16384 bytes or less as JSON"; "timeoutMs must be an integer from 1 to 300000"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Validation quota exceeded" */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  validateEmailBatch: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The addresses to validate, 1 to 100; answered in this order */
          emails: string[];
          /** @description Echoed in the result; at most 16384 bytes as JSON */
          metadata?: {
            [key: string]: unknown;
          };
          /** @description Milliseconds the call waits for the verdict at most, within the sync budget (30 s by default): when they have passed, the answer is 202 with a poll URL, as when the budget runs out */
          timeoutMs?: number;
        };
      };
    };
    responses: {
      /** @description Each address’s verdict, or {email, pollUrl, requestId} for one still running (poll it) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BatchResults'];
        };
      };
      /** @description "emails must be 1 to 100 strings"; "email must be 10000 characters or less"; "metadata must be a JSON object"; "metadata must be 16384 bytes or less as JSON"; "timeoutMs must be an integer from 1 to 300000"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Validation quota exceeded" */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  validateEmailAsync: {
    parameters: {
      query?: never;
      header?: {
        /** @description Same key and same body within 24 hours: the first response again, and no new work. Same key, other body: 422. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The address to validate */
          email: string;
          /** @description Echoed in the result; at most 16384 bytes as JSON */
          metadata?: {
            [key: string]: unknown;
          };
          /** @description Milliseconds the call waits for the verdict at most, within the sync budget (30 s by default): when they have passed, the answer is 202 with a poll URL, as when the budget runs out */
          timeoutMs?: number;
        };
      };
    };
    responses: {
      /** @description Accepted: poll pollUrl after Retry-After seconds */
      202: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InProgress'];
        };
      };
      /** @description "email is required"; "email must be 10000 characters or less"; "metadata must be a JSON object"; "metadata must be 16384 bytes or less as JSON"; "timeoutMs must be an integer from 1 to 300000"; "Idempotency-Key must be 1 to 255 visible ASCII characters"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Validation quota exceeded" */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "A request with this Idempotency-Key is still in progress; retry in a few seconds" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Idempotency-Key reused with a different body" */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getValidation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        requestId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The verdict, as the sync endpoint’s 200 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationResult'];
        };
      };
      /** @description Still in progress: poll pollUrl after Retry-After seconds */
      202: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InProgress'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Validation request not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Validation failed; submit the address again"; "Validation did not complete in time; submit the address again"; "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getUsage: {
    parameters: {
      query?: {
        month?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The month’s usage; remaining counts what running bulk jobs hold as used */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Usage'];
        };
      };
      /** @description "month must be a calendar month written YYYY-MM"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listConnectedMailboxes: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
        connectionStatus?: 'connected' | 'credentials_error';
        reputationRange?:
          | 'today'
          | 'yesterday'
          | 'last7Days'
          | 'thisWeek'
          | 'last30Days'
          | 'lastWeek'
          | 'lastMonth'
          | 'thisMonth';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of mailboxes, sorted; total counts every match */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedMailboxPage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "connectionStatus must be one of connected, credentials_error"; "reputationRange must be one of today, yesterday, last7Days, thisWeek, last30Days, lastWeek, lastMonth, thisMonth"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  connectMailbox: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: unknown;
          imap: {
            host: unknown;
            port: number;
            /** @enum {string} */
            security: 'tls' | 'starttls';
            username: string;
            password: string;
          };
          smtp: {
            host: unknown;
            port: number;
            /** @enum {string} */
            security: 'tls' | 'starttls';
            username: string;
            password: string;
          };
        };
      };
    };
    responses: {
      /** @description The connected mailbox (reputation null until measured) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedMailboxItem'];
        };
      };
      /** @description "Body must be a JSON object"; "email is required"; "email must be a valid email address"; "imap must be an object with host, port, security, username and password"; "imap.host is required"; "imap.port must be a port number (1-65535)"; "imap.security must be tls or starttls"; "imap.username is required"; "imap.password is required"; "(the same for smtp)"; "IMAP login failed: <the server's words>"; "SMTP login failed: <the server's words>"; "IMAP server <host>:<port> unreachable: <why> (no such host, connection refused, timed out, TLS failed, not on a public network)"; "SMTP server <host>:<port> unreachable: <why>"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin can connect or disconnect mailboxes"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "This mailbox is already connected" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConnectedMailbox: {
    parameters: {
      query?: {
        startDate?: string;
        endDate?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The mailbox and its history over the window */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedMailbox'];
        };
      };
      /** @description "startDate must be a date in YYYY-MM-DD format"; "endDate must be a date in YYYY-MM-DD format"; "startDate must not be after endDate"; "startDate to endDate must span at most 3660 days"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Connected mailbox not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  disconnectMailbox: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Disconnected; connecting the address again gives a new id */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin can connect or disconnect mailboxes"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Connected mailbox not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listConnectedDomains: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of domains, sorted; total counts every match */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedDomainPage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getConnectedDomain: {
    parameters: {
      query?: {
        startDate?: string;
        endDate?: string;
      };
      header?: never;
      path: {
        domainName: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The domain and its history over the window */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedDomain'];
        };
      };
      /** @description "startDate must be a date in YYYY-MM-DD format"; "endDate must be a date in YYYY-MM-DD format"; "startDate must not be after endDate"; "startDate to endDate must span at most 3660 days"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Connected domain not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listUsers: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
        status?: 'active' | 'invited';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of users, sorted; total counts every match */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserPage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "status must be one of active, invited"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  inviteUser: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: email */
          email: string;
          name?: string;
          /**
           * @default member
           * @enum {string}
           */
          role: 'member' | 'admin';
        };
      };
    };
    responses: {
      /** @description Already invited: the invite is refreshed, no second seat */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['User'];
        };
      };
      /** @description The invited user */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['User'];
        };
      };
      /** @description "Body must be a JSON object"; "email is required"; "email must be a valid email address"; "name must be a string"; "name must be 200 characters or less"; "role must be member or admin"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "The API key's creator lacks the inviteUsers permission"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "A user with this email is already active"; "No free seats" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The user */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['User'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "User not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSafetyNetMailboxes: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
        activated?: 'true' | 'false';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of Safety Net mailboxes, sorted; total counts every match */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SafetyNetMailboxPage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "activated must be one of true, false"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSafetyNetMailbox: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The mailbox */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SafetyNetMailbox'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Safety Net mailbox not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchSafetyNetMailbox: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          activated: boolean;
        };
      };
    };
    responses: {
      /** @description The updated mailbox */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SafetyNetMailbox'];
        };
      };
      /** @description "Body must be exactly {"activated": true} or {"activated": false}"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Safety Net mailbox not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSafetyNetSequences: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
        activated?: 'true' | 'false';
        service?: 'outreach' | 'salesloft';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of sequence rows, sorted; total counts every match */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SafetyNetSequencePage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "activated must be one of true, false"; "service must be one of outreach, salesloft"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSafetyNetSequence: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The sequence row */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SafetyNetSequence'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Safety Net sequence not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchSafetyNetSequence: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          activated: boolean;
        };
      };
    };
    responses: {
      /** @description The updated sequence row */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SafetyNetSequence'];
        };
      };
      /** @description "Body must be exactly {"activated": true} or {"activated": false}"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "The API key's creator lacks the toggleSequences permission"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Safety Net sequence not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  acceptInvite: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          token: string;
          password: string;
          name?: string;
        };
      };
    };
    responses: {
      /** @description The user, now active (id, createdAt, the invite's role) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AcceptedUser'];
        };
      };
      /** @description "Invalid request body: token and password are required strings (name, if given, 1 to 200 characters)"; "A password needs at least 12 characters, with a lower-case letter, an upper-case letter, a digit and a symbol (this one needs at least 12 characters, an upper-case letter, a digit, a symbol)"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "This email already signs in to a mailvet workspace" */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "This invite link is no longer valid" */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listApiKeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The keys, oldest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyList'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin can manage API keys"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
        };
      };
    };
    responses: {
      /** @description The new key, shown once */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedApiKey'];
        };
      };
      /** @description "name is required: 1 to 100 characters"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin can manage API keys"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The key, with revokedAt */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKey'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin can manage API keys"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "API key not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  requestPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          email: string;
        };
      };
    };
    responses: {
      /** @description Accepted (whether or not the address has an account) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasswordResetAnswer'];
        };
      };
      /** @description "Invalid request body: email is required"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  confirmPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          token: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description The password is changed */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasswordResetAnswer'];
        };
      };
      /** @description "Invalid request body: token and password are required strings"; "A password needs at least 12 characters, with a lower-case letter, an upper-case letter, a digit and a symbol (this one needs at least 12 characters, an upper-case letter, a digit, a symbol)"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "This password reset link is no longer valid" */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  startIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        platform: 'outreach' | 'salesloft';
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The platform’s authorize URL (its state works once, for 10 minutes) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuthorizeUrl'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin may manage Safety Net connections and the allowlist"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "platform must be outreach or salesloft" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        platform: 'outreach' | 'salesloft';
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Disconnected */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin may manage Safety Net connections and the allowlist"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "platform must be outreach or salesloft"; "This platform is not connected" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  integrationCallback: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        platform: 'outreach' | 'salesloft';
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description To the console’s Safety Net page */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "This connection link is invalid or has expired: connect again from the console"; "The platform refused the authorization: connect again from the console" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "platform must be outreach or salesloft" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listIntegrations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The connections */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Integrations'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  syncIntegration: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        platform: 'outreach' | 'salesloft';
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The sync is queued; GET /v1/integrations shows it */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "platform must be outreach or salesloft"; "This platform is not connected" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  integrationWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        platform: 'outreach' | 'salesloft';
        companyId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Accepted: the connection’s scheduled emails are read now */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "Invalid signature" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Not found" */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSafetyNetPreventions: {
    parameters: {
      query?: {
        limit?: string;
        offset?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of preventions; total counts them all */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PreventionPage'];
        };
      };
      /** @description "limit must be an integer between 1 and 1000"; "offset must be an integer of at least 0"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSafetyNetAllowlist: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The allowlist, lower-cased */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Allowlist'];
        };
      };
      /** @description "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin may manage Safety Net connections and the allowlist"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putSafetyNetAllowlist: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        email: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Allowlisted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "email must be an email address"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin may manage Safety Net connections and the allowlist"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteSafetyNetAllowlist: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        email: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed (or was not there) */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description "email must be an email address"; "Invalid JSON body"; "JSON body must not be nested more than 64 levels deep" */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Missing API key"; "Invalid token" */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Only an admin may manage Safety Net connections and the allowlist"; "Invalid API key" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Rate limit exceeded" */
      429: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Internal server error" */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description "Service temporarily unavailable" */
      503: {
        headers: {
          /** @description Seconds to wait before trying again */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
