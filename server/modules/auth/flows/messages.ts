import type { UiText } from '../../../contracts/identity.js';

/**
 * Kratos' message texts by id (its text/id.go and message.go), so a client keyed on ids behaves as with Kratos.
 * `{name}` placeholders are filled from the message's context.
 */
export const TEXTS: Record<number, string> = {
  1010001: 'Sign in',
  1010003: 'Please confirm this action by verifying that it is you.',
  1010004: 'Please complete the second authentication challenge.',
  1010022: 'Sign in with password',
  1040001: 'Sign up',
  1050001: 'Your changes have been saved!',
  1060002:
    'An email containing a recovery link has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  1060003:
    'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  1070001: 'Password',
  1070002: 'First name',
  1070003: 'Last name',
  1070004: 'ID',
  1070005: 'Save',
  1070006: 'Sign out',
  1070007: 'E-Mail',
  1070008: 'Current password',
  1040002: 'Registration is by invitation only: open the link of your invitation.',
  1080001: 'An email containing a verification link has been sent to the email address you provided.',
  1080002: 'You successfully verified your email address.',
  1080003: 'An email containing a verification code has been sent to the email address you provided.',
  4000001: '{reason}',
  4000002: 'Property {property} is missing.',
  4000005: 'The password can not be used because {reason}.',
  4000006:
    'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
  4000007: 'An account with the same identifier (email, phone, username, ...) exists already.',
  4000008: 'The provided authentication code is invalid, please try again.',
  4000010: 'Account not active yet. Did you forget to verify your email address?',
  4000012: 'This backup recovery code has already been used.',
  4000016: 'The backup recovery code is not valid.',
  4000032: 'The password must be at least {min_length} characters long, but got {actual_length}.',
  4010002: 'Could not find a strategy to log you in with. Did you fill out the form correctly?',
  4010001: 'The {kind} flow expired {expired_at_unix_since_minutes} minutes ago, please try again.',
  4060004: 'The recovery token is invalid or has already been used. Please retry the flow.',
  4060006: 'The recovery code is invalid or has already been used. Please try again.',
  4070001: 'The verification token is invalid or has already been used. Please retry the flow.',
  4070006: 'The verification code is invalid or has already been used. Please try again.',
};

function fill(template: string, context: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (context[k] === undefined ? m : String(context[k])));
}

const typeOf = (id: number): UiText['type'] => (id >= 4_000_000 ? 'error' : id === 1050001 || id === 1080002 ? 'success' : 'info');

/** A message by Kratos id, with its text and type (4xxxxxx errors, 1xxxxxx info). */
export function message(id: number, context?: Record<string, unknown>, text?: string): UiText {
  return {
    id,
    text: text ?? fill(TEXTS[id] ?? '', context),
    type: typeOf(id),
    ...(context && Object.keys(context).length > 0 && { context }),
  };
}

/** A node label (always info). */
export function label(id: number, text?: string): UiText {
  return { id, text: text ?? TEXTS[id] ?? '', type: 'info' };
}
