// The user pool as the directory of people (Cognito's admin API): create a person with the password
// they chose, find one by email, set a new password. No self sign-up exists: these calls are the only
// way a person enters the pool. Passwords are passed through, never logged or kept.
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  type AttributeType,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognito } from '../clients/cognito';
import { ValidationError } from '../errors';
import { settings } from '../settings';

/** Thrown when the pool refuses a password; its message says what the pool's policy wants. */
class PasswordRefusedError extends ValidationError {}

function poolId(): string {
  const id = settings().PEOPLE_USER_POOL_ID;
  if (!id) throw new Error('PEOPLE_USER_POOL_ID is not set: this deployment has no user pool');
  return id;
}

const subOf = (attributes: AttributeType[] | undefined): string | undefined =>
  attributes?.find((attribute) => attribute.Name === 'sub')?.Value;

function named(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

async function passwordCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (named(error, 'InvalidPasswordException'))
      throw new PasswordRefusedError((error as Error).message || 'The password does not meet the policy');
    throw error;
  }
}

/**
 * Creates a confirmed person with this password (no welcome email: the invite was the email).
 * `exists` when the pool already has a person with this email.
 */
export async function createPerson(
  email: string,
  password: string,
): Promise<{ sub: string } | { exists: true }> {
  let sub: string | undefined;
  try {
    const created = await cognito().send(
      new AdminCreateUserCommand({
        UserPoolId: poolId(),
        Username: email,
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
        ],
        MessageAction: 'SUPPRESS',
      }),
    );
    sub = subOf(created.User?.Attributes);
  } catch (error) {
    if (named(error, 'UsernameExistsException')) return { exists: true };
    throw error;
  }
  try {
    await setPersonPassword(email, password);
  } catch (error) {
    // A refused password leaves no half-made person behind: the next try starts afresh.
    await deletePerson(email).catch(() => undefined);
    throw error;
  }
  return { sub: sub ?? (await findPersonSub(email))! };
}

/** The pool's `sub` of the person with this email, or undefined. */
export async function findPersonSub(email: string): Promise<string | undefined> {
  try {
    const user = await cognito().send(new AdminGetUserCommand({ UserPoolId: poolId(), Username: email }));
    return subOf(user.UserAttributes);
  } catch (error) {
    if (named(error, 'UserNotFoundException')) return undefined;
    throw error;
  }
}

/** Sets a permanent password (the person signs in with it at once). */
export async function setPersonPassword(email: string, password: string): Promise<void> {
  await passwordCall(
    cognito().send(
      new AdminSetUserPasswordCommand({
        UserPoolId: poolId(),
        Username: email,
        Password: password,
        Permanent: true,
      }),
    ),
  );
}

async function deletePerson(email: string): Promise<void> {
  await cognito().send(new AdminDeleteUserCommand({ UserPoolId: poolId(), Username: email }));
}
