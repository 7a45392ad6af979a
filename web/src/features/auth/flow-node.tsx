import type { ReactNode } from 'react';
import {
  Button,
  Checkbox,
  Field,
  Input,
  Link,
  makeStyles,
  MessageBar,
  MessageBarBody,
  Spinner,
  Text,
  tokens,
  type InputProps,
} from '@fluentui/react-components';
import type {
  UiNode,
  UiNodeAnchorAttributes,
  UiNodeImageAttributes,
  UiNodeInputAttributes,
  UiNodeTextAttributes,
  UiText,
} from '@contracts/identity';

const useStyles = makeStyles({
  text: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  secrets: {
    display: 'grid',
    gridTemplateColumns: 'repeat(2, minmax(0, 1fr))',
    gap: tokens.spacingVerticalXS,
    margin: 0,
    padding: tokens.spacingHorizontalM,
    listStyleType: 'none',
    fontFamily: tokens.fontFamilyMonospace,
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
  },
  code: { fontFamily: tokens.fontFamilyMonospace, wordBreak: 'break-all' },
  img: { alignSelf: 'center', maxWidth: '100%', height: 'auto' },
});

export const inputAttrs = (node: UiNode) =>
  node.attributes.node_type === 'input' ? (node.attributes as UiNodeInputAttributes) : null;

/** True for an input the user types into or ticks (not hidden, not a button). */
export function isField(node: UiNode): boolean {
  const a = inputAttrs(node);
  return !!a && !['hidden', 'submit', 'button'].includes(a.type);
}

export const isSubmit = (node: UiNode) => inputAttrs(node)?.type === 'submit';
export const isTrigger = (node: UiNode) => inputAttrs(node)?.type === 'button';
export const isHidden = (node: UiNode) => inputAttrs(node)?.type === 'hidden' || node.type === 'script';

/** A node's label: the override by name, the server's, else its name. */
export function nodeLabel(node: UiNode, labels: Record<string, string> = {}): string {
  const a = inputAttrs(node);
  return (a && labels[a.name]) || node.meta.label?.text || a?.name || '';
}

/** The messages of one node or of the whole flow, as message bars (errors are announced). */
export function UiMessages({ messages }: { messages: UiText[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <>
      {messages.map((m) => (
        <MessageBar
          key={`${m.id}-${m.text}`}
          intent={m.type === 'error' ? 'error' : m.type === 'success' ? 'success' : 'info'}
          role={m.type === 'error' ? 'alert' : 'status'}
          data-message-id={m.id}
        >
          <MessageBarBody>{m.text}</MessageBarBody>
        </MessageBar>
      ))}
    </>
  );
}

export interface FieldNodeProps {
  node: UiNode;
  label: string;
  value: unknown;
  onChange(value: unknown): void;
  autoFocus?: boolean;
  /** a message of the page's own (e.g. the password confirmation) on top of the server's */
  extraError?: string;
}

const INPUT_TYPES = new Set(['text', 'password', 'email', 'number', 'tel', 'url', 'date', 'datetime-local']);

/** A field node: Fluent's Field with the label and the node's messages, an Input or a Checkbox. */
export function FieldNode({ node, label, value, onChange, autoFocus, extraError }: FieldNodeProps) {
  const a = inputAttrs(node)!;
  const error = extraError ?? node.messages.filter((m) => m.type === 'error').map((m) => m.text).join(' ');
  const hint = node.messages.filter((m) => m.type !== 'error').map((m) => m.text).join(' ') || undefined;
  if (a.type === 'checkbox') {
    return (
      <Field validationMessage={error || undefined} hint={hint}>
        <Checkbox
          name={a.name}
          label={label}
          checked={value === true || value === 'true'}
          disabled={a.disabled}
          onChange={(_, d) => onChange(d.checked === true)}
        />
      </Field>
    );
  }
  const type = (INPUT_TYPES.has(a.type) ? a.type : 'text') as InputProps['type'];
  return (
    <Field label={label} required={a.required} validationMessage={error || undefined} hint={hint}>
      <Input
        name={a.name}
        type={type}
        value={value === undefined || value === null ? '' : String(value)}
        autoComplete={a.autocomplete}
        // one-time codes: digits on a phone's keyboard
        inputMode={a.autocomplete === 'one-time-code' || a.name.endsWith('_code') ? 'numeric' : undefined}
        maxLength={a.maxlength}
        disabled={a.disabled}
        autoFocus={autoFocus}
        onChange={(_, d) => onChange(d.value)}
      />
    </Field>
  );
}

/** A submit or trigger button; `primary` for the page's main action (the first method's first button). */
export function ButtonNode({
  node,
  label,
  primary,
  busy,
  onClick,
}: {
  node: UiNode;
  label: string;
  primary: boolean;
  busy: boolean;
  onClick?: () => void;
}) {
  const a = inputAttrs(node)!;
  return (
    <Button
      type={a.type === 'submit' ? 'submit' : 'button'}
      name={a.name}
      value={a.value === undefined ? undefined : String(a.value)}
      appearance={primary ? 'primary' : 'secondary'}
      size={primary ? 'large' : 'medium'}
      disabled={busy || a.disabled}
      icon={busy && primary ? <Spinner size="tiny" /> : undefined}
      onClick={onClick}
    >
      {label}
    </Button>
  );
}

/** Text (a TOTP secret, recovery codes), an image (the QR code) or a link. */
export function ContentNode({ node }: { node: UiNode }): ReactNode {
  const s = useStyles();
  const attrs = node.attributes;
  if (attrs.node_type === 'text') {
    const { text } = attrs as UiNodeTextAttributes;
    const secrets = (text.context?.secrets as Array<{ text?: string } | string> | undefined) ?? null;
    return (
      <div className={s.text} data-node-id={attrs.id}>
        {node.meta.label && <Text weight="semibold">{node.meta.label.text}</Text>}
        {secrets ? (
          <ul className={s.secrets} aria-label={node.meta.label?.text ?? text.text}>
            {secrets.map((secret, i) => (
              <li key={i}>{typeof secret === 'string' ? secret : secret.text}</li>
            ))}
          </ul>
        ) : (
          <Text className={s.code}>{text.text}</Text>
        )}
      </div>
    );
  }
  if (attrs.node_type === 'img') {
    const img = attrs as UiNodeImageAttributes;
    return (
      <img className={s.img} src={img.src} width={img.width} height={img.height} alt={node.meta.label?.text ?? 'QR code'} />
    );
  }
  if (attrs.node_type === 'a') {
    const a = attrs as UiNodeAnchorAttributes;
    return (
      <Link href={a.href} id={a.id}>
        {a.title.text}
      </Link>
    );
  }
  return null;
}
