import type {
  KratosErrorBody, SelfServiceFlow, UiNode, UiNodeGroup, UiNodeInputAttributes, UiText,
} from '@contracts/identity';

/**
 * Reading the settings flow's nodes (Kratos' shapes, server/contracts/identity.ts): each profile section picks the
 * nodes of its group and renders its own card instead of a generic form. Pure functions, tested beside.
 */

export function isInput(node: UiNode): node is UiNode & { attributes: UiNodeInputAttributes } {
  return node.attributes.node_type === 'input';
}

/** The nodes of one method (group). */
export function groupNodes(flow: SelfServiceFlow | undefined, group: UiNodeGroup): UiNode[] {
  return flow ? flow.ui.nodes.filter((n) => n.group === group) : [];
}

function nodeName(node: UiNode): string {
  const a = node.attributes;
  return a.node_type === 'input' ? a.name : 'id' in a ? a.id : '';
}

/** The node named (an input's `name`, a text's or image's `id`). */
export function findNode(flow: SelfServiceFlow | undefined, name: string): UiNode | undefined {
  return flow?.ui.nodes.find((n) => nodeName(n) === name);
}

/** Every input node with this name (one `webauthn_remove` button per key). */
export function findInputs(flow: SelfServiceFlow | undefined, name: string): (UiNode & { attributes: UiNodeInputAttributes })[] {
  return (flow?.ui.nodes ?? []).filter(isInput).filter((n) => n.attributes.name === name);
}

export function inputValue(flow: SelfServiceFlow | undefined, name: string): string {
  const node = findNode(flow, name);
  if (!node || !isInput(node)) return '';
  const v = node.attributes.value;
  return v === undefined || v === null ? '' : String(v);
}

/** The flow's CSRF token (bound to the httpOnly cookie): every settings submission carries it. */
export function csrfToken(flow: SelfServiceFlow | undefined): string {
  return inputValue(flow, 'csrf_token');
}

/** A text node's text (`totp_secret_key`). */
export function nodeText(flow: SelfServiceFlow | undefined, id: string): string {
  const node = findNode(flow, id);
  return node?.attributes.node_type === 'text' ? node.attributes.text.text : '';
}

/** The messages at the nodes of a group, and the flow's own messages when `withFlow`. */
export function groupMessages(flow: SelfServiceFlow | undefined, group: UiNodeGroup, withFlow = false): UiText[] {
  const at = groupNodes(flow, group).flatMap((n) => n.messages ?? []);
  return withFlow ? [...(flow?.ui.messages ?? []), ...at] : at;
}

/** The messages at one field. */
export function fieldMessages(flow: SelfServiceFlow | undefined, name: string): UiText[] {
  return findNode(flow, name)?.messages ?? [];
}

/** The authenticator app as the flow shows it: linked (a `totp_unlink` button), or the QR code and secret to enrol. */
export function totpState(flow: SelfServiceFlow | undefined) {
  const qr = findNode(flow, 'totp_qr');
  return {
    linked: !!findNode(flow, 'totp_unlink'),
    available: groupNodes(flow, 'totp').length > 0,
    qr: qr?.attributes.node_type === 'img' ? qr.attributes.src : null,
    secret: nodeText(flow, 'totp_secret_key'),
  };
}

/**
 * The recovery codes as the flow shows them: the `lookup_secret_codes` text lists them in `context.secrets` (a used
 * one says so), else as text separated by commas or new lines.
 */
export function lookupCodes(flow: SelfServiceFlow | undefined): { code: string; used: boolean }[] {
  const node = findNode(flow, 'lookup_secret_codes');
  if (node?.attributes.node_type !== 'text') return [];
  const text = node.attributes.text;
  const secrets = text.context?.secrets;
  if (Array.isArray(secrets)) {
    return secrets.map((s: UiText) => ({
      code: String(s.context?.secret ?? s.text),
      // Kratos: 1050014 "Secret was used at …"
      used: s.id === 1050014 || s.context?.used_at !== undefined,
    }));
  }
  return text.text
    .split(/[,\n]/)
    .map((c) => c.trim())
    .filter(Boolean)
    .map((code) => ({ code, used: false }));
}

export function lookupState(flow: SelfServiceFlow | undefined) {
  return {
    available: groupNodes(flow, 'lookup_secret').length > 0,
    canReveal: !!findNode(flow, 'lookup_secret_reveal'),
    canRegenerate: !!findNode(flow, 'lookup_secret_regenerate'),
    mustConfirm: !!findNode(flow, 'lookup_secret_confirm'),
    canDisable: !!findNode(flow, 'lookup_secret_disable'),
    codes: lookupCodes(flow),
    /** "7 of 10 backup recovery codes left." */
    remaining: nodeText(flow, 'lookup_secret_remaining'),
  };
}

/** A registered security key or passkey, from its remove button (label context: display_name, added_at, last_used_at). */
export interface RegisteredKey {
  id: string;
  kind: 'webauthn' | 'passkey';
  name: string;
  addedAt: string | null;
  lastUsedAt: string | null;
}

export function registeredKeys(flow: SelfServiceFlow | undefined): RegisteredKey[] {
  const keys = (kind: RegisteredKey['kind']) =>
    findInputs(flow, `${kind}_remove`).map((n): RegisteredKey => {
      const ctx = (n.meta.label?.context ?? {}) as Record<string, unknown>;
      const at = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? new Date(v * 1000).toISOString() : null);
      return {
        id: String(n.attributes.value ?? ''),
        kind,
        name: typeof ctx.display_name === 'string' && ctx.display_name ? ctx.display_name : kind === 'passkey' ? 'Passkey' : 'Security key',
        addedAt: at(ctx.added_at) ?? at(ctx.added_at_unix),
        lastUsedAt: at(ctx.last_used_at) ?? at(ctx.last_used_at_unix),
      };
    });
  return [...keys('passkey'), ...keys('webauthn')];
}

/** The options a WebAuthn registration starts from: the trigger's value, or passkey_create_data's, as JSON. */
export function registrationOptions(flow: SelfServiceFlow | undefined, kind: 'webauthn' | 'passkey'): unknown {
  const raw = kind === 'passkey'
    ? inputValue(flow, 'passkey_create_data') || inputValue(flow, 'passkey_register_trigger')
    : inputValue(flow, 'webauthn_register_trigger');
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    // Kratos wraps them: {credentialOptions: {publicKey}} (passkey) or {publicKey} (webauthn)
    const inner = (parsed.credentialOptions ?? parsed) as Record<string, unknown>;
    return inner.publicKey ?? inner;
  } catch {
    return null;
  }
}

/** A Kratos error body carried by a failed call (403 session_refresh_required, 410, 422), if it is one. */
export function kratosError(body: unknown): KratosErrorBody | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Partial<KratosErrorBody>;
  return b.error && typeof b.error === 'object' ? (b as KratosErrorBody) : null;
}

/** A flow returned with a 400 (validation messages at fields), if the body is one. */
export function flowBody(body: unknown): SelfServiceFlow | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Partial<SelfServiceFlow>;
  return typeof b.id === 'string' && b.ui && Array.isArray(b.ui.nodes) ? (b as SelfServiceFlow) : null;
}
