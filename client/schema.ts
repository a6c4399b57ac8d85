// Generated from docs/openapi.json by `npm run client:types` (openapi-typescript); do not edit.

export interface paths {
  '/v1/email/validate-file': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
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
    delete?: never;
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
    /** Presigned GET of the results file, valid 3600 s */
    get: operations['downloadJob'];
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
  '/v1/connected-mailboxes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Connected mailboxes with their reputation over a window */
    get: operations['listConnectedMailboxes'];
    put?: never;
    post?: never;
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
    delete?: never;
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
    /** Users, invited ones included */
    get: operations['listUsers'];
    put?: never;
    /** Invite a user (needs the invite permission) */
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
    /** One user */
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
    /** Switch the Safety Net for a sequence, under every owner (needs the toggle permission) */
    patch: operations['patchSafetyNetSequence'];
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: never;
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  createJob: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          emailColumn: number;
          fileName?: string;
          callbackUrl?: string;
        };
      };
    };
    responses: {
      /** @description {jobId, status: "awaiting_upload", uploadExpiresIn, uploadUrl} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A body rule of spec 7.1, with its exact text */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Five active jobs already (Retry-After: 60), or the rate limit (Retry-After: 1) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description {completedAt, createdAt, error?, jobId, percentComplete, processedEmails, statistics, status, totalEmails}; status is awaiting_upload, processing, completed, failed or expired */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Job not found"} */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  downloadJob: {
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
      /** @description {downloadUrl, expiresIn: 3600, format: "csv", jobId} */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Job not found"} */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Job is not completed"} */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          /** @description The address to validate; blank or missing is 400 "email is required" */
          email: string;
          /** @description Echoed in the result; at most 16 KiB as JSON */
          metadata?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description {didYouMean?, domain, email, mailbox, metadata?, requestId, result: {reason, status, subStatus}, validatedAt} */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Over the budget: {pollUrl, requestId, retryAfter} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"email is required"} and other body errors */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  validateEmailAsync: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The address to validate; blank or missing is 400 "email is required" */
          email: string;
          /** @description Echoed in the result; at most 16 KiB as JSON */
          metadata?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description {pollUrl, requestId, retryAfter} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"email is required"} */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description The result, as the sync endpoint’s 200 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Still in progress: {pollUrl, requestId, retryAfter} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown requestId, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Failed irrecoverably */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description A page of mailboxes (key "mailboxes", with reputationRange {endDate, name, startDate}): {limit, offset, total, <list>} (decisions.md names the list key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A bad limit, offset or filter; the error names the parameter */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description The mailbox with currentReputation and history [{date, reputation}] */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Bad dates */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description A page of domains (key "domains"): {limit, offset, total, <list>} (decisions.md names the list key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A bad limit, offset or filter; the error names the parameter */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description The domain with its history [{date, reputation}] */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Bad dates */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description A page of users (key "users"): {limit, offset, total, <list>} (decisions.md names the list key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A bad limit, offset or filter; the error names the parameter */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          'application/json': Record<string, never>;
        };
      };
      /** @description The invited user */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A bad body */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description An active user has this email, or no seat is free */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description A page of mailboxes (key "mailboxes"): {limit, offset, total, <list>} (decisions.md names the list key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A bad limit, offset or filter; the error names the parameter */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          'application/json': Record<string, never>;
        };
      };
      /** @description Body other than {"activated": boolean} */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
      /** @description A page of sequences (key "sequences"): {limit, offset, total, <list>} (decisions.md names the list key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A bad limit, offset or filter; the error names the parameter */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
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
          'application/json': Record<string, never>;
        };
      };
      /** @description Body other than {"activated": boolean} */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Missing API key"} */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Invalid API key"}, or the key’s creator lacks the permission of a write */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unknown id, or another company’s */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Rate limit exceeded"}, Retry-After: 1 */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description {"error":"Service temporarily unavailable"}, with Retry-After */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
}
