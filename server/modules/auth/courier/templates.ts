import type { OutgoingMail } from './queries.js';

/**
 * The sign-in mails: plain text plus a minimal HTML part, every value escaped. Codes and links appear only here and
 * in the sealed outbox row (./index.ts), never in a log line.
 */

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function html(paragraphs: string[], link?: { href: string; text: string }): string {
  const body = paragraphs.map((p) => `<p>${esc(p)}</p>`).join('\n');
  const a = link ? `\n<p><a href="${esc(link.href)}">${esc(link.text)}</a></p>` : '';
  return `<!doctype html>\n<html><body style="font-family: sans-serif">\n${body}${a}\n</body></html>\n`;
}

const FOOTER = 'If you did not ask for this, you can ignore this message.';

/** Recovery: the 6-digit code and the link, both good for `minutes`. */
export function recoveryMail(to: string, code: string, link: string, minutes: number): OutgoingMail {
  const lines = [
    'Someone asked to recover the account for this email address.',
    `Your recovery code is: ${code}`,
    `Or open this link to recover your account: ${link}`,
    `The code and the link work once, within ${minutes} minutes.`,
    FOOTER,
  ];
  return {
    recipient: to, template: 'recovery_code', subject: 'Recover access to your account',
    bodyText: `${lines.join('\n\n')}\n`,
    bodyHtml: html([lines[0], lines[1], lines[3], FOOTER], { href: link, text: 'Recover your account' }),
  };
}

/** Verification of an address: the code and the link. */
export function verificationMail(to: string, code: string, link: string, minutes: number): OutgoingMail {
  const lines = [
    'Please verify your email address.',
    `Your verification code is: ${code}`,
    `Or open this link to verify it: ${link}`,
    `The code and the link work once, within ${minutes} minutes.`,
    FOOTER,
  ];
  return {
    recipient: to, template: 'verification_code', subject: 'Please verify your email address',
    bodyText: `${lines.join('\n\n')}\n`,
    bodyHtml: html([lines[0], lines[1], lines[3], FOOTER], { href: link, text: 'Verify your email address' }),
  };
}

/** To the old address once a new one is verified and applied. */
export function emailChangedMail(to: string, newEmail: string, consoleUrl: string): OutgoingMail {
  const lines = [
    `The email address of your account was changed to ${newEmail}.`,
    'If you did not make this change, sign in and review your account, or ask an administrator for help.',
  ];
  return {
    recipient: to, template: 'email_changed', subject: 'Your email address was changed',
    bodyText: `${lines.join('\n\n')}\n\n${consoleUrl}\n`,
    bodyHtml: html(lines, { href: consoleUrl, text: 'Open the console' }),
  };
}

/** An invitation with its registration link. */
export function inviteMail(to: string, firstName: string, link: string, expiresAt: Date): OutgoingMail {
  const lines = [
    `Hello ${firstName || to},`,
    'You have been invited to the operations console. Open this link to choose a password and sign in:',
    link,
    `The link works once, until ${expiresAt.toUTCString()}.`,
  ];
  return {
    recipient: to, template: 'invite', subject: 'You are invited to the operations console',
    bodyText: `${lines.join('\n\n')}\n`,
    bodyHtml: html([lines[0], lines[1], lines[3]], { href: link, text: 'Accept the invitation' }),
  };
}
