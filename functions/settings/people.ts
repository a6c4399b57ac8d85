// The settings of people and sign-in (functions/domain/people/): the user pool whose tokens the API
// accepts, and where the console's links point. Spread into the schema of functions/settings.ts.
import { z } from 'zod';

export const peopleSettings = {
  /**
   * The Cognito user pool people sign in to (the stack sets it on every function). Unset: the API
   * takes API keys only and every bearer token is refused (401).
   */
  PEOPLE_USER_POOL_ID: z.string().min(1).optional(),
  /** The console's app client: the only audience (`client_id`) a token may carry. */
  PEOPLE_CLIENT_ID: z.string().min(1).optional(),
  /**
   * The pool's token issuer (`iss`): `https://cognito-idp.<region>.amazonaws.com/<pool id>` in AWS, the
   * emulator's `http://127.0.0.1:<port>/<pool id>` locally. Its `/.well-known/jwks.json` holds the keys.
   */
  PEOPLE_TOKEN_ISSUER: z.url().optional(),
  /** Local runtime only: the Cognito emulator's endpoint for the admin calls. Unset in AWS. */
  AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: z.url().optional(),
  /** The console's address (no trailing slash): invite and password-reset links point at its pages. */
  CONSOLE_URL: z.url().optional(),
  /** Minutes a password-reset link stays usable. */
  PASSWORD_RESET_MINUTES: z.coerce.number().int().min(1).max(1440).default(60),
};
